// .npy input of the quantization subcommands (quantize, dequantize, analyze): a tensor of
// f32, f16 or bf16 values as f32 (both convert exactly), its shape folded to rows x cols.
#pragma once

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "tcemu/convert.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::cli {

struct QuantInput {
  std::vector<size_t> shape;
  size_t rows = 1, cols = 1;
  std::vector<float> values;
  std::string format;           // f32, f16, bf16
  std::vector<uint64_t> codes;  // the input's codes, row-major (what a golden case stores as x)
};

// `format` empty: from the dtype (<f4 f32, <f2 f16, <u2 bf16 codes); else f32/f16/bf16 checked
// against the dtype's size. `where` names the array in messages (the file's path).
inline QuantInput quant_input_of(const io::NpyArray& a, const std::string& where, const std::string& format) {
  QuantInput in;
  in.shape = a.shape;
  std::string fmt = format;
  if (fmt.empty()) {
    if (a.descr == "<f4") fmt = "f32";
    else if (a.descr == "<f2") fmt = "f16";
    else if (a.descr == "<u2") fmt = "bf16";
    else throw InputError(where + ": dtype '" + a.descr + "' is not f32 (<f4), f16 (<f2) or bf16 codes (<u2)");
  }
  Fmt f;
  if (fmt == "f32") f = Fmt::f32;
  else if (fmt == "f16") f = Fmt::f16;
  else if (fmt == "bf16") f = Fmt::bf16;
  else throw InputError("input format must be f32, f16 or bf16, not '" + fmt + "'");
  const size_t item = a.item_size();  // the dtype parsed once, not once an element
  if (item * 8 != info(f).width) throw InputError(where + ": dtype '" + a.descr + "' does not hold " + fmt + " values");
  if (a.shape.empty()) throw InputError(where + ": a scalar has no blocks; give at least one dimension");
  const size_t n = a.count();
  if (a.data.size() != n * item) throw InputError(where + ": the data does not hold the shape's elements");
  in.format = fmt;
  in.cols = a.shape.back();
  for (size_t i = 0; i + 1 < a.shape.size(); ++i) in.rows *= a.shape[i];
  in.values.resize(n);
  ConvertOptions exact;
  in.codes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, a.data.data() + i * item, item);  // little-endian host, as NpyArray::bits
    in.codes[i] = bits;
    const uint64_t code = f == Fmt::f32 ? bits : convert(f, Fmt::f32, bits, exact).code;
    in.values[i] = std::bit_cast<float>(static_cast<uint32_t>(code));
  }
  return in;
}

inline QuantInput read_quant_input(const std::string& path, const std::string& format) {
  return quant_input_of(value_of(io::try_read_npy(path)), path, format);
}

}  // namespace tcemu::cli
