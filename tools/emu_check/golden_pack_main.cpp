// tcemu-golden-pack DIR OUT: every MMA case of the golden files in DIR (golden/sets) written
// to OUT as a golden pack (golden_pack.hpp), for tcemu-emu-check on a machine without a JSON
// library. Exit 0 on success, 2 on a usage or input error.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "golden_pack.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/golden.hpp"

int main(int argc, char** argv) {
  using namespace tcemu;
  if (argc != 3) {
    std::cerr << "usage: tcemu-golden-pack GOLDEN_DIR OUT\n";
    return 2;
  }
  try {
    std::vector<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(argv[1]))
      if (f.path().extension() == ".json" && f.path().filename() != "index.json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    std::vector<emu_check::PackedCase> cases;
    for (const auto& f : files) {
      const Result<golden::GoldenFile> file = golden::try_read_golden(f.string());
      if (!file.ok()) {
        std::cerr << "tcemu-golden-pack: " << file.error << "\n";
        return 2;
      }
      for (const golden::Case& c : file.value.cases) {
        if (c.op != golden::OpKind::mma) continue;
        const golden::MmaInputs in = golden::mma_inputs(c);
        emu_check::PackedCase p;
        p.name = c.name;
        p.entry = c.mma.entry;
        p.M = c.mma.M;
        p.N = c.mma.N;
        p.K = c.mma.K;
        p.options = c.mma.options;
        p.A = in.A;
        p.B = in.B;
        p.C = in.C;
        p.sa = in.sa;
        p.sb = in.sb;
        p.D = c.expected.logical();
        cases.push_back(std::move(p));
      }
    }
    std::ofstream out(argv[2], std::ios::binary);
    const std::string bytes = emu_check::write_pack(cases);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::cerr << "tcemu-golden-pack: cannot write " << argv[2] << "\n";
      return 2;
    }
    std::cout << cases.size() << " MMA cases, " << bytes.size() << " bytes -> " << argv[2] << "\n";
    return 0;
  } catch (const std::exception& e) {  // the folder's listing (std::filesystem), mma_inputs' preconditions
    std::cerr << "tcemu-golden-pack: " << e.what() << "\n";
    return 2;
  }
}
