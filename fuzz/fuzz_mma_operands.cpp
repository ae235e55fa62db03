// The operand checks of `tcemu mma` (tools/cli/cmd_mma.cpp): the command run as the command
// line runs it, on .npy operands that the input describes. The files are well-formed (the
// .npy reader has its own harness, fuzz_npy): what varies is what the checks judge, each
// operand's dtype, shape and codes, which operands and scales are given, storage orders and
// --from-values. Byte 0 picks a catalog instruction, byte 1 the flags, then per operand a
// dtype byte and two extents (1..8; 0 leaves the operand out), then the elements' bytes
// (zeros once the input runs out). Only the command's input error (InputError: exit 2) may
// escape. The files are in /dev/shm (memory) when it exists.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n, i = 0;
  uint8_t next() { return i < n ? p[i++] : 0; }
};

const std::string& dir() {
  static const std::string d = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return d;
}

std::string path(const char* what) { return dir() + "/tcemu-fuzz-mma-" + std::to_string(getpid()) + "-" + what + ".npy"; }

// An operand file of a dtype the flags byte picks, extents from the input, codes from it.
bool write_operand(Bytes& in, const char* what, std::string& file) {
  static const char* const kDescr[] = {"|u1", "<u2", "<u4", "<u8", "<f4", "<f2", "|i1", "<i4"};
  const uint8_t d = in.next();
  const size_t r = in.next() % 9, c = in.next() % 9;
  if (r == 0 || c == 0) return false;
  tcemu::io::NpyArray a;
  a.descr = kDescr[d % 8];
  a.shape = {r, c};
  a.data.resize(r * c * a.item_size());
  // Codes: mostly small (in range for narrow formats), raw bytes when the dtype byte's top bit is set.
  for (uint8_t& b : a.data) b = (d & 0x80) ? in.next() : static_cast<uint8_t>(in.next() & 0x0F);
  file = path(what);
  tcemu::io::write_npy(file, a);
  return true;
}

}  // namespace

// One thread (D is the same for every count; a thread team per run costs more than these
// small problems).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("TCEMU_NUM_THREADS", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const std::vector<const tcemu::InstrEntry*> instrs = [] {
    std::vector<const tcemu::InstrEntry*> v;
    for (const tcemu::InstrEntry& e : tcemu::catalog())
      if (!e.types_in_descriptor) v.push_back(&e);
    return v;
  }();
  Bytes in{data, size};
  const tcemu::InstrEntry& e = *instrs[(in.next() * 7u) % instrs.size()];
  const uint8_t flags = in.next();
  std::vector<std::string> args = {"tcemu", "mma", "--arch", e.arch, "--instr", e.ptx, "-q", "-o", path("D")};
  std::string a, b, c, sa, sb;
  if (!write_operand(in, "A", a)) a = path("none");  // a missing file: "cannot open"
  if (!write_operand(in, "B", b)) b = path("none");
  args.push_back(a);
  args.push_back(b);
  if (flags & 1 && write_operand(in, "C", c)) args.push_back(c);
  if (flags & 2 && write_operand(in, "SA", sa)) args.insert(args.end(), {"--scale-a", sa});
  if (flags & 4 && write_operand(in, "SB", sb)) args.insert(args.end(), {"--scale-b", sb});
  if (flags & 8) args.push_back("--from-values");
  if (flags & 16) args.insert(args.end(), {"--order-a", "col"});
  if (flags & 32) args.insert(args.end(), {"--order-b", "row"});
  if (flags & 64) args.push_back("--no-scale-d");
  if (flags & 128) args.insert(args.end(), {"--promote-every", std::to_string(in.next() % 4)});
  // A command line is parsed once (building CLI11's parser took a sixth of each run): the
  // runner holds its options and reads the files when called. At most 4096 kept.
  static std::map<std::string, tcemu::cli::Runner> runners;
  std::string key;
  for (const std::string& s : args) key.append(s).push_back('\0');
  tcemu::cli::Runner& run = runners[key];
  if (!run) {
    std::vector<char*> argv;
    for (std::string& s : args) argv.push_back(s.data());
    CLI::App app;
    tcemu::cli::add_mma_command(app, run);
    app.parse(static_cast<int>(argv.size()), argv.data());
  }
  const tcemu::cli::Runner once = run;
  if (runners.size() > 4096) runners.clear();
  try {
    once();
  } catch (const tcemu::cli::InputError&) {
  } catch (const tcemu::io::NpyError&) {  // the reader's worded error (a missing operand file)
  }
  return 0;
}
