// Where tcemu.mma computes (device="cpu", "cuda", "cuda:N"): device parsing, tcemu.cuda_status,
// and the errors of the emulator on a GPU (tcemu/mma_cuda.hpp, docs/gpu-emulation.md).
#include <pybind11/stl.h>

#include "common.hpp"
#include "tcemu/mma_cuda.hpp"

namespace tcemu::py_bind {

void throw_device_error(const std::string& error, int device) {
  const CudaStatus st = cuda_status(device);
  if (!st.usable)
    throw std::runtime_error("device='cuda:" + std::to_string(device) + "': cannot run the emulator on the GPU: " +
                             st.why_not);
  throw py::value_error(error);
}

void init_cuda(py::module_& m) {
  // (-1 for "cpu", else the CUDA device number), or None for a string that is not a device.
  m.def("parse_device", [](const std::string& s) -> std::optional<int> {
    const std::optional<DeviceSpec> d = parse_device(s);
    if (!d) return std::nullopt;
    return d->kind == DeviceSpec::Kind::cpu ? -1 : d->index;
  });
  m.def("cuda_status", [](int index) {
    const CudaStatus st = cuda_status(index);
    py::dict d;
    d["device"] = "cuda:" + std::to_string(index);
    d["built"] = st.built;
    d["usable"] = st.usable;
    d["name"] = st.name;
    d["why_not"] = st.why_not;
    return d;
  }, py::arg("index") = 0);
}

}  // namespace tcemu::py_bind
