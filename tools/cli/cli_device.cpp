// --device (cli_device.hpp).
#include "cli_device.hpp"

#include "cli_util.hpp"

namespace tcemu::cli {

DeviceSpec device_arg(const std::string& s) {
  const std::optional<DeviceSpec> d = parse_device(s);
  if (!d)
    throw InputError("--device: unknown device '" + shown(s) +
                     "' (valid: cpu, cuda, or cuda:N with N the CUDA device number, e.g. cuda:1)");
  if (d->kind == DeviceSpec::Kind::cuda) {
    const CudaStatus st = cuda_status(d->index);
    if (!st.usable) throw InputError("--device " + to_string(*d) + ": cannot run the emulator on the GPU: " + st.why_not);
  }
  return *d;
}

}  // namespace tcemu::cli
