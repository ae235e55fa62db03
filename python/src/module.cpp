// The extension module tcemu._tcemu: thin bindings of the C++ library (emulator/include/tcemu)
// and of the golden-vector library (golden/include/tcemu_golden). The Python package tcemu
// (python/tcemu/__init__.py) checks arguments, accepts NumPy arrays and torch CPU tensors, and
// calls these functions with C-contiguous arrays of the right dtype.
#include "common.hpp"

// pybind11 before 2.12 reads NumPy 1's array descriptors only: under NumPy 2 every array would
// have 0-byte elements, so such a build refuses to import there (CMakeLists.txt prefers the
// test environment's pybind11, which reads both).
#define TCEMU_PYBIND11_READS_NUMPY2 (PYBIND11_VERSION_MAJOR > 2 || (PYBIND11_VERSION_MAJOR == 2 && PYBIND11_VERSION_MINOR >= 12))

PYBIND11_MODULE(_tcemu, m) {
  m.doc() = "tcemu: bit-exact emulator of NVIDIA tensor-core arithmetic (C++ bindings)";
#if !TCEMU_PYBIND11_READS_NUMPY2
  {
    const std::string numpy_version = pybind11::module_::import("numpy").attr("__version__").cast<std::string>();
    if (numpy_version.empty() || numpy_version[0] != '1' || (numpy_version.size() > 1 && numpy_version[1] != '.')) {
      throw pybind11::import_error("tcemu._tcemu was built with pybind11 " PYBIND11_TOSTRING(PYBIND11_VERSION_MAJOR) "." PYBIND11_TOSTRING(PYBIND11_VERSION_MINOR)
                                   ", which reads NumPy 1 arrays only, and this interpreter has NumPy " + numpy_version +
                                   ": rebuild with pybind11 >= 2.12 (the environment of requirements.txt has one: "
                                   "scripts/install-deps.sh, then configure again)");
    }
  }
#endif
  // The pybind11 the module was built with (python/tests checks it is the pinned one).
  m.attr("_pybind11_version") = PYBIND11_TOSTRING(PYBIND11_VERSION_MAJOR) "." PYBIND11_TOSTRING(PYBIND11_VERSION_MINOR) "." PYBIND11_TOSTRING(PYBIND11_VERSION_PATCH);
  namespace b = tcemu::py_bind;
  b::init_formats(m);
  b::init_convert(m);
  b::init_mma(m);
  b::init_gemm(m);
  b::init_quant(m);
  b::init_golden(m);
  b::init_cuda(m);
  b::init_dlpack(m);
}
