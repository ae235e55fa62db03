// The input reader of `tcemu quantize` / `analyze` / `lossscale --grads` (quant_input_of, what
// read_quant_input applies to the file it reads: an .npy array of f32, f16 or bf16 values) on
// arbitrary file contents, then the MXFP8 recipe on what it accepted, as `tcemu quantize
// --recipe mxfp8` does. The bytes are parsed in memory by the reader read_npy uses (npy::parse;
// a file written and read back each run cost more than the parsing). Only InputError (exit 2),
// the reader's NpyError and the recipe's own worded check may escape.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cmd_quant_io.hpp"
#include "tcemu/npy_reader.hpp"
#include "tcemu/parallel.hpp"
#include "tcemu/quant_recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One thread: the results are the same for every count, and a thread team each run costs
  // more than these small inputs' blocks.
  static constexpr tcemu::Exec kOneThread{1};
  static const tcemu::quant::Recipe recipe = *tcemu::quant::find_recipe("mxfp8");
  try {
    tcemu::Result<tcemu::npy::Array> parsed =
        tcemu::npy::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    if (!parsed.ok()) return 0;
    tcemu::npy::Array& r = parsed.value;
    tcemu::io::NpyArray a;
    a.descr = std::move(r.header.descr);
    a.shape = std::move(r.header.shape);
    a.data = std::move(r.data);
    const tcemu::cli::QuantInput in = tcemu::cli::quant_input_of(a, "fuzz.npy", "");
    if (in.values.size() != in.rows * in.cols || in.codes.size() != in.values.size()) std::abort();
    const tcemu::Result<tcemu::quant::Quantized> q = tcemu::quant::quantize(recipe, in.values, in.rows, in.cols, {}, kOneThread);
    if (!q.ok() && q.error.find(' ') == std::string::npos) std::abort();  // an error is a message
    if (q.ok() && q.value.codes.size() != in.values.size()) std::abort();
  } catch (const tcemu::cli::InputError&) {
  } catch (const tcemu::io::NpyError&) {
  }
  return 0;
}
