// tcemu decode FORMAT CODE...: each code's fields and exact value.
#include <iostream>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tcemu::cli {

void add_decode_command(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("decode", "Print each code's sign, exponent, significand, class and exact value");
  auto fmt = std::make_shared<std::string>();
  auto codes = std::make_shared<std::vector<std::string>>();
  cmd->add_option("FORMAT", *fmt, "format name")->required();
  cmd->add_option("CODE", *codes, "hex codes")->required();
  cmd->callback([&run, fmt, codes] {
    run = [fmt, codes] {
      const Fmt f = format_arg(*fmt);
      const FormatInfo& fi = info(f);
      static constexpr const char* kClass[] = {"zero", "subnormal", "normal", "inf", "nan"};
      for (size_t i = 0; i < codes->size(); ++i) {
        uint64_t c = parse_code(f, (*codes)[i], "code " + std::to_string(i + 1));
        Decoded d = decode(f, c);
        std::cout << "0x" << to_hex(f, c) << "  " << fi.name << "  ";
        if (fi.is_int) {
          std::cout << "class=" << kClass[int(d.cls)] << "  value=" << exact_decimal(f, c) << "\n";
          continue;
        }
        const uint64_t man = (c >> fi.man_shift) & ((uint64_t{1} << fi.man_bits) - 1);
        const uint64_t eb = (c >> (fi.man_shift + fi.man_bits)) & ((uint64_t{1} << fi.exp_bits) - 1);
        std::cout << "sign=" << (d.sign ? 1 : 0) << "  exponent field=" << eb << "  fraction field=0x" << std::hex << man
                  << std::dec << "  class=" << kClass[int(d.cls)];
        if (d.cls != Class::nan && d.cls != Class::inf && d.cls != Class::zero)
          std::cout << "  significand=" << d.sig << "  scale=2^" << d.exp;
        std::cout << "  value=" << exact_decimal(f, c) << "\n";
      }
      return 0;
    };
  });
}

}  // namespace tcemu::cli
