// Helpers shared by the binding files: format lookup by name, contiguous array access, and
// the rule that every library error reaches Python as ValueError (never a C++ message
// without context). The argument checks that name a Python argument are in tcemu/*.py.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcemu/code_vector.hpp"
#include "tcemu/format.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu::py_bind {

namespace py = pybind11;

// The format of a name, or ValueError naming `arg`.
inline Fmt format_of(const std::string& name, const char* arg) {
  auto f = parse_format(name);
  if (!f) throw py::value_error(std::string(arg) + ": unknown format '" + name + "'");
  return *f;
}

// The Exec of a threads= value (0: TCEMU_NUM_THREADS, else every core), checked before any
// work: a bad value (or a bad TCEMU_NUM_THREADS when 0 asks for it) is ValueError naming threads.
inline Exec exec_of(int threads) {
  try {
    (void)thread_count(Exec{threads});
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string("threads: ") + e.what());
  }
  return Exec{threads};
}

// Where the Python layer asks for a product to run: `threads` on the CPU (checked as above), or
// (device >= 0) that CUDA device.
inline Exec exec_of(int threads, int device) {
  if (device < 0) return exec_of(threads);
  Exec x{threads};
  x.device = DeviceSpec::cuda(device);
  return x;
}

// A C-contiguous array's element count and data (the Python layer passes only those).
inline size_t count(const py::array& a) { return static_cast<size_t>(a.size()); }

// Bytes per element, read through Python: pybind11 2.10's array::itemsize() reads the dtype
// struct with NumPy 1's layout, which NumPy 2 changed (it returns 0 under the venv's 2.4).
inline py::ssize_t item_bytes(const py::array& a) { return a.attr("itemsize").cast<py::ssize_t>(); }

// Codes of any unsigned container (1, 2, 4 or 8 bytes) widened to uint64.
inline std::vector<uint64_t> widen(const py::array& a) {
  const size_t n = count(a);
  std::vector<uint64_t> out(n);
  const auto* p = static_cast<const uint8_t*>(a.data());
  switch (item_bytes(a)) {
    case 1: for (size_t i = 0; i < n; ++i) out[i] = p[i]; break;
    case 2: for (size_t i = 0; i < n; ++i) out[i] = reinterpret_cast<const uint16_t*>(p)[i]; break;
    case 4: for (size_t i = 0; i < n; ++i) out[i] = reinterpret_cast<const uint32_t*>(p)[i]; break;
    default: for (size_t i = 0; i < n; ++i) out[i] = reinterpret_cast<const uint64_t*>(p)[i]; break;
  }
  return out;
}

// An unsigned NumPy array of `bytes` per element holding `codes`, with the given shape.
inline py::array narrow(const std::vector<uint64_t>& codes, int bytes, std::vector<py::ssize_t> shape) {
  py::array out;
  switch (bytes) {
    case 1: out = py::array_t<uint8_t>(shape); break;
    case 2: out = py::array_t<uint16_t>(shape); break;
    case 4: out = py::array_t<uint32_t>(shape); break;
    default: out = py::array_t<uint64_t>(shape); break;
  }
  auto* p = static_cast<uint8_t*>(out.mutable_data());
  const size_t n = codes.size();
  switch (bytes) {
    case 1: for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(codes[i]); break;
    case 2: for (size_t i = 0; i < n; ++i) reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(codes[i]); break;
    case 4: for (size_t i = 0; i < n; ++i) reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(codes[i]); break;
    default: for (size_t i = 0; i < n; ++i) reinterpret_cast<uint64_t*>(p)[i] = codes[i]; break;
  }
  return out;
}

// Codes already at their container width (mma's D) as an array of `bytes`-byte items
// (int32 for signed32 with 4 bytes). Where the widths agree the array takes the codes' memory
// over (no copy: D is held once, at its container width); else it is a narrowing copy.
inline py::array narrow(CodeVector&& codes, int bytes, std::vector<py::ssize_t> shape, bool signed32 = false) {
  if (codes.width() != bytes) return narrow(codes.values(), bytes, std::move(shape));
  py::dtype dt = bytes == 1   ? py::dtype::of<uint8_t>()
                 : bytes == 2 ? py::dtype::of<uint16_t>()
                 : bytes == 4 ? (signed32 ? py::dtype::of<int32_t>() : py::dtype::of<uint32_t>())
                              : py::dtype::of<uint64_t>();
  auto* held = new CodeVector(std::move(codes));
  py::capsule owner(held, [](void* p) { delete static_cast<CodeVector*>(p); });
  return py::array(dt, std::move(shape), held->data(), owner);
}

void init_formats(py::module_& m);
void init_convert(py::module_& m);
void init_mma(py::module_& m);
void init_gemm(py::module_& m);
void init_quant(py::module_& m);
void init_golden(py::module_& m);
void init_cuda(py::module_& m);
void init_dlpack(py::module_& m);

// An error of the emulator on CUDA device `device` (mma() with a CUDA Exec, bind_cuda.cpp): RuntimeError
// saying why when the device cannot run it (no CUDA backend, no driver, no such device),
// otherwise ValueError with the error (a problem the emulator refuses).
[[noreturn]] void throw_device_error(const std::string& error, int device);

}  // namespace tcemu::py_bind
