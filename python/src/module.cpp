// The extension module tcemu._tcemu: thin bindings of the C++ library (emulator/include/tcemu)
// and of the golden-vector library (golden/include/tcemu_golden). The Python package tcemu
// (python/tcemu/__init__.py) checks arguments, accepts NumPy arrays and torch CPU tensors, and
// calls these functions with C-contiguous arrays of the right dtype.
#include "common.hpp"

PYBIND11_MODULE(_tcemu, m) {
  m.doc() = "tcemu: bit-exact emulator of NVIDIA tensor-core arithmetic (C++ bindings)";
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
