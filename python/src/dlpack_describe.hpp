// The DLPack tensor description reader of python/src/bind_dlpack.cpp, without Python: the
// ABI structs (written from the published DLPack C header's ABI,
// https://dmlc.github.io/dlpack/latest/c_api.html; nothing is included from it) and the check
// of a tensor's description, which a producer may fill with anything. The binding turns
// Error into TypeError (kind type) or ValueError (kind value); fuzz/fuzz_dlpack.cpp feeds it
// arbitrary descriptions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcemu::dlpack {

struct DlDevice {
  int32_t device_type;  // kDLCPU = 1, kDLCUDA = 2, kDLCUDAManaged = 13, ...
  int32_t device_id;
};
struct DlDataType {
  uint8_t code;  // the type code (kDlInt, ... below)
  uint8_t bits;
  uint16_t lanes;
};
struct DlTensor {
  void* data;
  DlDevice device;
  int32_t ndim;
  DlDataType dtype;
  int64_t* shape;    // ndim extents
  int64_t* strides;  // ndim strides in elements, or NULL for a C-contiguous (row-major) tensor
  uint64_t byte_offset;
};
struct DlManagedTensor {
  DlTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DlManagedTensor* self);
};
struct DlPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DlManagedTensorVersioned {
  DlPackVersion version;
  void* manager_ctx;
  void (*deleter)(DlManagedTensorVersioned* self);
  uint64_t flags;  // bit 0: read only; bit 1: a copy made by the producer
  DlTensor dl_tensor;
};
static_assert(sizeof(DlDataType) == 4 && sizeof(DlDevice) == 8);

// DLDataTypeCode values (DLPack 1.x).
enum : uint8_t {
  kDlInt = 0, kDlUInt = 1, kDlFloat = 2, kDlOpaqueHandle = 3, kDlBfloat = 4, kDlComplex = 5, kDlBool = 6,
  kDlFloat8_e3m4 = 7, kDlFloat8_e4m3 = 8, kDlFloat8_e4m3b11fnuz = 9, kDlFloat8_e4m3fn = 10, kDlFloat8_e4m3fnuz = 11,
  kDlFloat8_e5m2 = 12, kDlFloat8_e5m2fnuz = 13, kDlFloat8_e8m0fnu = 14, kDlFloat6_e2m3fn = 15, kDlFloat6_e3m2fn = 16,
  kDlFloat4_e2m1fn = 17,
};

inline constexpr int kMaxDims = 64;  // more than any array library makes; a larger ndim is not a real tensor

// The dtype's name (NumPy's spelling where NumPy has the type, else the DLPack enumerator's
// name in lower case), or "" for a code DLPack does not define.
inline std::string dtype_name(const DlDataType& t) {
  static const char* const kFloat8[] = {"float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                                        "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"};
  const std::string bits = std::to_string(t.bits);
  switch (t.code) {
    case kDlInt: return "int" + bits;
    case kDlUInt: return "uint" + bits;
    case kDlFloat: return "float" + bits;
    case kDlOpaqueHandle: return "opaque_handle" + bits;
    case kDlBfloat: return "bfloat" + bits;
    case kDlComplex: return "complex" + bits;
    case kDlBool: return "bool";
    case kDlFloat6_e2m3fn: return "float6_e2m3fn";
    case kDlFloat6_e3m2fn: return "float6_e3m2fn";
    case kDlFloat4_e2m1fn: return "float4_e2m1fn";
    default: break;
  }
  if (t.code >= kDlFloat8_e3m4 && t.code <= kDlFloat8_e8m0fnu) return kFloat8[t.code - kDlFloat8_e3m4];
  return "";
}

struct Error : std::runtime_error {
  enum Kind { type, value } kind;
  Error(Kind k, const std::string& what) : std::runtime_error(what), kind(k) {}
};

// What the emulator needs of a tensor, checked.
struct Description {
  DlDevice device{};
  uintptr_t ptr = 0;
  std::vector<int64_t> shape, strides;  // strides in bytes (C-contiguous ones when DLPack gave NULL)
  std::string dtype;
  int itemsize = 0;
};

[[noreturn]] inline void bad(const std::string& name, const std::string& what) {
  throw Error(Error::value, name + ": a malformed DLPack tensor: " + what);
}

// Checks the tensor's description (any content: a producer may hand over garbage) and copies it.
inline Description describe(const DlTensor& t, const std::string& name) {
  Description d;
  if (t.ndim < 0 || t.ndim > kMaxDims) bad(name, "ndim " + std::to_string(t.ndim));
  if (t.ndim > 0 && t.shape == nullptr) bad(name, "no shape (NULL) for " + std::to_string(t.ndim) + " dimensions");
  d.dtype = dtype_name(t.dtype);
  if (d.dtype.empty())
    throw Error(Error::type, name + ": a DLPack tensor of dtype code " + std::to_string(t.dtype.code) + " (" +
                         std::to_string(t.dtype.bits) + " bits), which DLPack does not define");
  if (t.dtype.lanes != 1)
    throw Error(Error::type, name + ": a DLPack tensor of " + std::to_string(t.dtype.lanes) + "-lane vectors of " + d.dtype +
                         "; tcemu takes one value per element (lanes = 1)");
  if (t.dtype.bits == 0 || t.dtype.bits % 8 != 0)
    throw Error(Error::type, name + ": a DLPack tensor of " + std::to_string(t.dtype.bits) + "-bit " + d.dtype +
                         " elements; tcemu takes codes of whole bytes (e.g. one 4-bit code per uint8)");
  d.itemsize = t.dtype.bits / 8;
  int64_t count = 1;
  d.shape.assign(static_cast<size_t>(t.ndim), 0);
  for (int i = 0; i < t.ndim; ++i) {
    const int64_t n = t.shape[i];
    if (n < 0) bad(name, "dimension " + std::to_string(i) + " of negative extent " + std::to_string(n));
    if (__builtin_mul_overflow(count, n, &count)) bad(name, "a shape whose element count overflows 64 bits");
    d.shape[static_cast<size_t>(i)] = n;
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(d.itemsize), &bytes))
    bad(name, "a shape whose size in bytes overflows 64 bits");
  d.strides.assign(static_cast<size_t>(t.ndim), 0);
  int64_t c_stride = d.itemsize;  // NULL strides: row-major (python_spec, "strides")
  for (int i = t.ndim - 1; i >= 0; --i) {
    int64_t s = c_stride;
    if (t.strides != nullptr && __builtin_mul_overflow(t.strides[i], static_cast<int64_t>(d.itemsize), &s))
      bad(name, "stride " + std::to_string(t.strides[i]) + " of dimension " + std::to_string(i) + " overflows 64 bits");
    d.strides[static_cast<size_t>(i)] = s;
    if (__builtin_mul_overflow(c_stride, t.shape[i] > 0 ? t.shape[i] : 1, &c_stride))
      bad(name, "a shape whose size in bytes overflows 64 bits");
  }
  if (t.data == nullptr && count > 0) bad(name, "a NULL data pointer for " + std::to_string(count) + " elements");
  uintptr_t p = 0;
  if (__builtin_add_overflow(reinterpret_cast<uintptr_t>(t.data), t.byte_offset, &p))
    bad(name, "byte_offset " + std::to_string(t.byte_offset) + " past the end of the address space");
  d.ptr = p;
  d.device = t.device;
  return d;
}

}  // namespace tcemu::dlpack
