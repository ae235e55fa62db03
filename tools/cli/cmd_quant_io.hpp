// .npy input of the quantization subcommands (quantize, dequantize, analyze): a tensor of
// f32, f16 or bf16 values as f32 (both convert exactly), its shape folded to rows x cols.
#pragma once

#include <bit>
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
// against the dtype's size.
inline QuantInput read_quant_input(const std::string& path, const std::string& format) {
  io::NpyArray a = io::read_npy(path);
  QuantInput in;
  in.shape = a.shape;
  std::string fmt = format;
  if (fmt.empty()) {
    if (a.descr == "<f4") fmt = "f32";
    else if (a.descr == "<f2") fmt = "f16";
    else if (a.descr == "<u2") fmt = "bf16";
    else throw InputError(path + ": dtype '" + a.descr + "' is not f32 (<f4), f16 (<f2) or bf16 codes (<u2)");
  }
  Fmt f;
  if (fmt == "f32") f = Fmt::f32;
  else if (fmt == "f16") f = Fmt::f16;
  else if (fmt == "bf16") f = Fmt::bf16;
  else throw InputError("input format must be f32, f16 or bf16, not '" + fmt + "'");
  if (a.item_size() * 8 != info(f).width)
    throw InputError(path + ": dtype '" + a.descr + "' does not hold " + fmt + " values");
  if (a.shape.empty()) throw InputError(path + ": a scalar has no blocks; give at least one dimension");
  in.format = fmt;
  in.cols = a.shape.back();
  for (size_t i = 0; i + 1 < a.shape.size(); ++i) in.rows *= a.shape[i];
  in.values.resize(a.count());
  ConvertOptions exact;
  in.codes.resize(a.count());
  for (size_t i = 0; i < a.count(); ++i) {
    in.codes[i] = a.bits(i);
    const uint64_t code = f == Fmt::f32 ? a.bits(i) : convert(f, Fmt::f32, a.bits(i), exact).code;
    in.values[i] = std::bit_cast<float>(static_cast<uint32_t>(code));
  }
  return in;
}

}  // namespace tcemu::cli
