// tcemu info [FORMAT]: a format's table of properties (or a summary of every format).
// tcemu info --devices: where the emulator can compute (the CPU; CUDA GPUs when this build has
// the CUDA backend, docs/gpu-emulation.md).
#include <iomanip>
#include <iostream>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/mma_cuda.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu::cli {
namespace {

std::string code_and_value(Fmt f, std::optional<uint64_t> c) {
  if (!c) return "none";
  return "0x" + to_hex(f, *c) + " = " + exact_decimal(f, *c);
}

void print_info(Fmt f) {
  const FormatInfo& fi = info(f);
  auto row = [](std::string_view k, const std::string& v) { std::cout << std::left << std::setw(16) << k << v << "\n"; };
  row("format", std::string(fi.name));
  row("bits", std::to_string(fi.width) + (f == Fmt::tf32 ? " (19 significant, in an f32 container; low 13 bits 0)" : ""));
  if (fi.is_int) {
    row("kind", fi.is_signed ? "signed integer (two's complement)" : "unsigned integer");
    row("min", code_and_value(f, fi.is_signed ? max_finite_code(f, true) : 0));
    row("max", code_and_value(f, max_finite_code(f, false)));
    return;
  }
  row("kind", fi.is_signed ? "signed float" : "unsigned float (no sign bit)");
  row("exponent bits", std::to_string(fi.exp_bits));
  row("mantissa bits", std::to_string(fi.man_bits));
  row("bias", std::to_string(fi.bias));
  row("emin", std::to_string(fi.emin()) + " (smallest normal exponent)");
  row("emax", std::to_string(fi.emax()) + " (largest finite exponent)");
  row("max finite", code_and_value(f, max_finite_code(f, false)));
  row("min normal", code_and_value(f, min_normal_code(f)));
  row("min subnormal", code_and_value(f, min_subnormal_code(f)));
  row("zero", fi.has_zero ? code_and_value(f, zero_code(f, false)) + (fi.is_signed ? ", -0: 0x" + to_hex(f, *zero_code(f, true)) : "")
                          : "none (0x00 is the smallest value)");
  row("inf", fi.has_inf() ? "0x" + to_hex(f, *inf_code(f, false)) + ", -inf: 0x" + to_hex(f, *inf_code(f, true)) : "none");
  std::string nan = "none";
  switch (fi.specials) {
    case Specials::ieee: nan = "exponent all ones, fraction != 0 (canonical 0x" + to_hex(f, *canonical_nan(f)) + ")"; break;
    case Specials::nan_all_ones:
      nan = "0x" + to_hex(f, *canonical_nan(f)) + (fi.is_signed ? " and 0x" + to_hex(f, *canonical_nan(f) | fi.sign_mask()) : std::string(" only"));
      break;
    case Specials::nan_max_code: nan = "0x" + to_hex(f, *canonical_nan(f)) + " only"; break;
    case Specials::none: break;
  }
  row("nan", nan);
}

// One line per device: cpu, then every usable CUDA device (cuda:0, cuda:1, ...), or one line
// saying why none is.
void print_devices() {
  std::cout << std::left << std::setw(8) << "cpu" << "usable (" << thread_count(Exec{}) << " threads)\n";
  const CudaStatus first = cuda_status(0);
  std::cout << std::setw(8) << "cuda" << "CUDA backend " << (first.built ? "built" : "not built") << "\n";
  if (!first.usable) {
    std::cout << std::setw(8) << "cuda:0" << "not usable: " << first.why_not << "\n";
    return;
  }
  for (int i = 0; i < 1024; ++i) {
    const CudaStatus s = i == 0 ? first : cuda_status(i);
    if (!s.usable) break;
    std::cout << std::setw(8) << "cuda:" + std::to_string(i) << "usable: " << s.name << "\n";
  }
}

}  // namespace

void add_info_command(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("info", "Print a format's properties (max finite, min normal, NaN and Inf codes)");
  auto name = std::make_shared<std::string>();
  cmd->add_option("FORMAT", *name, "format name; without it, every format in one line each");
  auto devices = std::make_shared<bool>(false);
  cmd->add_flag("--devices", *devices, "where the emulator can compute: the CPU, and CUDA GPUs (--device of mma, golden gen)");
  cmd->callback([&run, name, devices] {
    run = [name, devices] {
      if (*devices) {
        if (!name->empty()) throw InputError("info: --devices takes no FORMAT");
        print_devices();
        return 0;
      }
      if (name->empty()) {
        std::cout << std::left << std::setw(7) << "format" << std::setw(6) << "bits" << std::setw(6) << "e/m"
                  << std::setw(6) << "bias" << "max finite\n";
        for (const FormatInfo& fi : kFormats) {
          std::cout << std::setw(7) << fi.name << std::setw(6) << int(fi.width)
                    << std::setw(6) << (fi.is_int ? std::string("int") : std::to_string(fi.exp_bits) + "/" + std::to_string(fi.man_bits))
                    << std::setw(6) << fi.bias << exact_decimal(fi.id, max_finite_code(fi.id, false)) << "\n";
        }
        return 0;
      }
      print_info(format_arg(*name));
      return 0;
    };
  });
}

}  // namespace tcemu::cli
