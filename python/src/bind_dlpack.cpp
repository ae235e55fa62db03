// Operands handed over through DLPack: the reader of the capsule that an array's __dlpack__
// returns (tcemu._tcemu.dlpack_import, used by python/tcemu/_device.py for CUDA arrays that
// have no __cuda_array_interface__, e.g. JAX arrays on a GPU), and the test entry _dlpack_info.
// The check of the tensor's description is dlpack_describe.hpp's (no Python: fuzzed alone).
//
// The Python exchange protocol is the DLPack Python specification
// (https://dmlc.github.io/dlpack/latest/python_spec.html): __dlpack__(stream=..., max_version=...)
// returns a PyCapsule named "dltensor" (a DLManagedTensor) or, when the consumer asked for
// max_version >= (1, 0) and the producer supports it, "dltensor_versioned" (a
// DLManagedTensorVersioned). The consumer renames the capsule to "used_dltensor" /
// "used_dltensor_versioned" when it takes the tensor, and then calls the tensor's deleter once
// when it no longer needs the memory (the producer's capsule destructor only frees a capsule
// that still has its unused name). The ABI structs are dlpack_describe.hpp's.
#include <Python.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "dlpack_describe.hpp"

namespace tcemu::py_bind {
namespace {

using namespace tcemu::dlpack;

// A DLPack tensor taken from its capsule: what the emulator needs of it, and the ownership of
// the producer's memory, given back (the deleter called, once) by release() or the destructor.
class DlpackTensor {
 public:
  DlpackTensor(void* managed, bool versioned) : managed_(managed), versioned_(versioned) {}
  DlpackTensor(const DlpackTensor&) = delete;
  DlpackTensor& operator=(const DlpackTensor&) = delete;
  ~DlpackTensor() { release(); }

  void release() {
    void* m = std::exchange(managed_, nullptr);
    if (m == nullptr) return;
    if (versioned_) {
      auto* t = static_cast<DlManagedTensorVersioned*>(m);
      if (t->deleter != nullptr) t->deleter(t);
    } else {
      auto* t = static_cast<DlManagedTensor*>(m);
      if (t->deleter != nullptr) t->deleter(t);
    }
  }
  const DlTensor& tensor() const {
    return versioned_ ? static_cast<DlManagedTensorVersioned*>(managed_)->dl_tensor
                      : static_cast<DlManagedTensor*>(managed_)->dl_tensor;
  }
  uint64_t flags() const { return versioned_ ? static_cast<DlManagedTensorVersioned*>(managed_)->flags : 0; }

  // Filled by read(): the tensor's description, checked.
  DlDevice device{};
  uintptr_t ptr = 0;
  std::vector<int64_t> shape, strides;  // strides in bytes (C-contiguous ones when DLPack gave NULL)
  std::string dtype;
  int itemsize = 0;
  bool versioned() const { return versioned_; }
  bool released() const { return managed_ == nullptr; }

 private:
  void* managed_;
  bool versioned_;
};

// Checks the tensor's description (any content: a producer may hand over garbage) and copies it.
void read(DlpackTensor& d, const std::string& name) {
  Description r;
  try {
    r = describe(d.tensor(), name);
  } catch (const Error& e) {
    if (e.kind == Error::type) throw py::type_error(e.what());
    throw py::value_error(e.what());
  }
  d.device = r.device;
  d.ptr = r.ptr;
  d.shape = std::move(r.shape);
  d.strides = std::move(r.strides);
  d.dtype = std::move(r.dtype);
  d.itemsize = r.itemsize;
}

constexpr const char* kUnused = "dltensor";
constexpr const char* kUnusedVersioned = "dltensor_versioned";

// Takes the tensor out of a capsule (renaming it: it is read once) and checks it.
std::unique_ptr<DlpackTensor> consume(py::handle cap, const std::string& name) {
  if (!PyCapsule_CheckExact(cap.ptr()))
    throw py::type_error(name + ": __dlpack__() returned a " + std::string(Py_TYPE(cap.ptr())->tp_name) +
                         ", not a DLPack capsule");
  const char* cname = PyCapsule_GetName(cap.ptr());
  if (cname == nullptr && PyErr_Occurred()) throw py::error_already_set();
  const std::string cn = cname == nullptr ? "" : cname;
  if (cn == "used_dltensor" || cn == "used_dltensor_versioned")
    throw py::value_error(name + ": this DLPack capsule was already consumed (a capsule is read once)");
  const bool versioned = cn == kUnusedVersioned;
  if (!versioned && cn != kUnused)
    throw py::type_error(name + ": a capsule named '" + cn + "', not a DLPack tensor ('dltensor' or "
                         "'dltensor_versioned')");
  void* m = PyCapsule_GetPointer(cap.ptr(), versioned ? kUnusedVersioned : kUnused);
  if (m == nullptr) {
    if (PyErr_Occurred()) throw py::error_already_set();
    bad(name, "a NULL tensor in the capsule");
  }
  if (versioned) {
    // Only the version and the deleter are stable across major versions; a tensor of another
    // major version is left in its capsule (whose destructor gives it back).
    const DlPackVersion v = static_cast<DlManagedTensorVersioned*>(m)->version;
    if (v.major != 1)
      throw py::value_error(name + ": a DLPack " + std::to_string(v.major) + "." + std::to_string(v.minor) +
                            " tensor; tcemu reads DLPack 1.x");
  }
  if (PyCapsule_SetName(cap.ptr(), versioned ? "used_dltensor_versioned" : "used_dltensor") != 0)
    throw py::error_already_set();
  auto d = std::make_unique<DlpackTensor>(m, versioned);  // owned from here: released on any error below
  read(*d, name);
  return d;
}

// TypeError "<name>: its __dlpack__() failed: <the producer's exception>", chained to it.
[[noreturn]] void producer_failed(py::error_already_set& e, const std::string& name) {
  const std::string what = py::str(e.type().attr("__name__")).cast<std::string>() + ": " +
                           py::str(e.value()).cast<std::string>();
  py::raise_from(e, PyExc_TypeError, (name + ": its __dlpack__() failed: " + what).c_str());
  throw py::error_already_set();
}

// The capsule of x: x itself when it is one, else x.__dlpack__(stream=stream, max_version=(1, 0)),
// or x.__dlpack__(stream=stream) for a producer older than DLPack 1.0 (which takes no max_version).
py::object capsule_of(py::handle x, const std::string& name, py::handle stream) {
  if (PyCapsule_CheckExact(x.ptr())) return py::reinterpret_borrow<py::object>(x);
  py::object f = py::getattr(x, "__dlpack__", py::none());
  if (f.is_none()) throw py::type_error(name + ": a " + std::string(Py_TYPE(x.ptr())->tp_name) + " has no __dlpack__");
  try {
    return f(py::arg("stream") = stream, py::arg("max_version") = py::make_tuple(1, 0));
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_Exception)) throw;
    if (!e.matches(PyExc_TypeError)) producer_failed(e, name);
  }
  try {
    return f(py::arg("stream") = stream);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_Exception)) throw;
    producer_failed(e, name);
  }
}

py::dict info(const DlpackTensor& d) {
  py::dict r;
  r["device"] = py::make_tuple(d.device.device_type, d.device.device_id);
  r["ptr"] = py::int_(d.ptr);
  r["shape"] = py::tuple(py::cast(d.shape));
  r["strides"] = py::tuple(py::cast(d.strides));
  r["dtype"] = d.dtype;
  r["itemsize"] = d.itemsize;
  r["versioned"] = d.versioned();
  r["read_only"] = (d.flags() & 1) != 0;
  return r;
}

}  // namespace

void init_dlpack(py::module_& m) {
  py::class_<DlpackTensor>(m, "DlpackTensor",
                           "A tensor taken from a DLPack capsule; holds the producer's memory until release()")
      .def_property_readonly("device", [](const DlpackTensor& d) {
        return py::make_tuple(d.device.device_type, d.device.device_id);
      })
      .def_property_readonly("ptr", [](const DlpackTensor& d) { return py::int_(d.ptr); })
      .def_property_readonly("shape", [](const DlpackTensor& d) { return py::tuple(py::cast(d.shape)); })
      .def_property_readonly("strides", [](const DlpackTensor& d) { return py::tuple(py::cast(d.strides)); })
      .def_readonly("dtype", &DlpackTensor::dtype)
      .def_readonly("itemsize", &DlpackTensor::itemsize)
      .def_property_readonly("released", &DlpackTensor::released)
      .def("release", &DlpackTensor::release, "Gives the memory back to the producer (its deleter, once)");
  m.def("dlpack_import", [](py::handle x, const std::string& name, py::handle stream) {
    return consume(capsule_of(x, name, stream), name);
  }, py::arg("x"), py::arg("name"), py::arg("stream") = py::none(),
        "The DLPack tensor of x (a capsule, or an object with __dlpack__), consumed and checked");
  // For the tests: what dlpack_import reads of x, the tensor given back at once.
  m.def("_dlpack_info", [](py::handle x) {
    std::unique_ptr<DlpackTensor> d = consume(capsule_of(x, "x", py::none()), "x");
    py::dict r = info(*d);
    d->release();
    return r;
  }, py::arg("x"));
}

}  // namespace tcemu::py_bind
