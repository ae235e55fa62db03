// The input reader of `tcemu quantize` / `analyze` / `lossscale --grads` (read_quant_input:
// an .npy file of f32, f16 or bf16 values) on arbitrary file contents, then the MXFP8 recipe
// on what it accepted, as `tcemu quantize --recipe mxfp8` does. Only InputError (exit 2) and
// the recipe's own worded check may escape.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cmd_quant_io.hpp"
#include "tcemu/quant_recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tcemu-fuzz-quant-" + std::to_string(getpid()) + ".npy";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const tcemu::cli::QuantInput in = tcemu::cli::read_quant_input(path, "");
    if (in.values.size() != in.rows * in.cols || in.codes.size() != in.values.size()) std::abort();
    const tcemu::quant::Recipe r = *tcemu::quant::find_recipe("mxfp8");
    const tcemu::Result<tcemu::quant::Quantized> q = tcemu::quant::quantize(r, in.values, in.rows, in.cols);
    if (!q.ok() && q.error.find(' ') == std::string::npos) std::abort();  // an error is a message
    if (q.ok() && q.value.codes.size() != in.values.size()) std::abort();
  } catch (const tcemu::cli::InputError&) {
  } catch (const tcemu::io::NpyError&) {
  }
  return 0;
}
