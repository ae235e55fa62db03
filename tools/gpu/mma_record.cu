// mma_record: runs tensor-core instructions of sm_90a (mma.sync and wgmma) on directed and
// random tiles and records inputs and hardware outputs as element codes, for later bit-exact
// comparison with the emulator's datapath models. It only records; it judges nothing except
// its own operand layouts (a self-check with exactly representable integer tiles).
//
// Each instruction runs in its own child process (fork before any CUDA call in the parent), so
// an instruction that faults or hangs cannot take the others down; the parent kills a child
// after --child-timeout seconds and notes it in the summary.
//
// Output (DIR/mma/<spelling>[_scale-d0|_scale-d1].txt, one per instruction and scale-d), format
// documented in docs/gpu.md and in each file's header; DIR/mma_summary.txt lists them.
//
// Usage: mma_record [--out DIR] [--only SUBSTRING] [--jobs N] [--random N] [--random-wg N]
//                   [--child-timeout S] [--list] [--host-dry-run]
// (mma_record --help; the options are parsed by mma_record_args.cpp, CLI11, on the host compiler).
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "fragment_layout.hpp"
#include "gen/mma_instrs.inc"
#include "gpu_common.hpp"
#include "mma_record_args.hpp"
#include "mma_tiles.hpp"

using namespace tcemu_gpu;

namespace {

// The instructions (spellings looked up in gen/mma_instrs.inc), their kernels and launchers.
#include "mma_record_instrs.cuh"

}  // namespace

namespace {

// Operand layouts, running tiles, the layout self-check.
#include "mma_record_layout.cuh"

using Options = MmaRecordOptions;

std::string file_stem(const Instr& in, int scale_d) {
  std::string s = in.spelling;
  if (in.wgmma) s += scale_d ? "_scale-d1" : "_scale-d0";
  return s;
}

void write_record(const std::string& path, const Instr& in, const cudaDeviceProp& prop, int scale_d,
                  const std::string& layout, bool valid, const std::string& desc_note, const std::vector<Tile>& tiles) {
  std::ofstream f(path);
  const TileFormats& tf = in.tf;
  f << "# tcemu mma record, format 1 (docs/gpu.md). Codes are hex element codes of the named formats.\n"
    << "# Each tile: a line 'tile <i> <label>', then lines A (M*K codes, row-major A[m][k]), B (K*N codes,\n"
    << "# row-major B[k][n]), C (M*N, row-major), D (M*N, row-major): D = A*B + C as the hardware computed it.\n"
    << "instruction " << in.spelling << "\n"
    << "device " << prop.name << " sm_" << prop.major << prop.minor << "\n"
    << "shape M=" << tf.m << " N=" << tf.n << " K=" << tf.k << "\n"
    << "formats A=" << fmt_name(tf.a) << " B=" << fmt_name(tf.b) << " C=" << fmt_name(tf.c) << " D=" << fmt_name(tf.d)
    << "\n"
    << "scale_d " << scale_d << (scale_d ? " (C entered through the accumulator)" : " (D = A*B; C did not enter)") << "\n";
  if (in.wgmma) f << "operands A and B from shared memory, K-major, no swizzle; " << desc_note << "\n";
  f << "layout_check " << layout << "\n"
    << "status " << (valid ? "VALID" : "INVALID (layout self-check failed: do not use these tiles)") << "\n"
    << "tiles " << tiles.size() << "\n";
  auto row = [&](const char* tag, const std::vector<uint64_t>& v, Fmt fm) {
    f << tag;
    const int digits = fmt_bits(fm) / 4;
    for (uint64_t c : v) f << ' ' << hex(c, digits);
    f << '\n';
  };
  for (size_t i = 0; i < tiles.size(); ++i) {
    f << "tile " << i << ' ' << tiles[i].label << '\n';
    row("A", tiles[i].a, tf.a);
    row("B", tiles[i].b, tf.b);
    row("C", tiles[i].c, tf.c);
    row("D", tiles[i].d, tf.d);
  }
}

// The tiles of one run: layout checks, probes (float or integer), random tiles.
std::vector<Tile> build_tiles(const Instr& in, int n_random, uint64_t seed, std::vector<std::string>& skipped) {
  std::vector<Tile> tiles;
  const bool is_int = in.tf.a == Fmt::s8;
  for (const ValTile& v : is_int ? integer_probes(in.tf) : directed_probes(in.tf)) {
    if (auto t = realize(v, in.tf)) tiles.push_back(*t);
    else skipped.push_back(v.label);
  }
  SplitMix rng(seed);
  for (Dist d : {Dist::bits, Dist::unit, Dist::wide, Dist::subnormal})
    for (int i = 0; i < n_random; ++i) tiles.push_back(random_tile(in.tf, d, rng, i));
  if (in.tf.a == Fmt::tf32) {
    // The low 13 bits of a tf32 operand: the PTX ISA says the hardware ignores them.
    for (int i = 0; i < 4; ++i) {
      Tile t = random_tile(in.tf, Dist::unit, rng, i);
      t.label = "tf32-low-bits-set " + std::to_string(i);
      for (auto& c : t.a) c |= rng.next() & 0x1fff;
      for (auto& c : t.b) c |= rng.next() & 0x1fff;
      tiles.push_back(t);
    }
  }
  return tiles;
}

// Without a GPU: the tiles are built and written with D taken from C through pack_tile and
// unpack_d (C and D share their format in every instruction here), which checks that the two
// layouts are inverse and shows the size of the record. Prints the probes that did not fit.
int host_dry_run(const Instr& in, const Options& o) {
  cudaDeviceProp prop{};
  std::snprintf(prop.name, sizeof prop.name, "host-dry-run (no GPU; D is C)");
  const uint64_t seed = 0x6d6d615f7265ull + static_cast<uint64_t>(in.id);
  int bad = 0;
  for (int scale_d : in.wgmma ? std::vector<int>{1, 0} : std::vector<int>{1}) {
    std::vector<std::string> skipped;
    const int n_random = in.wgmma ? (scale_d ? o.random_wg : std::max(1, o.random_wg / 4)) : o.random;
    std::vector<Tile> tiles = build_tiles(in, n_random, seed ^ static_cast<uint64_t>(scale_d), skipped);
    std::vector<Tile> checks;
    for (int i = 0; i < 4; ++i) checks.push_back(layout_check_tile(in.tf, seed, i));
    tiles.insert(tiles.begin(), checks.begin(), checks.end());
    for (Tile& t : tiles) {
      Packed p;
      pack_tile(in, t, p);
      unpack_d(in, p.c.data(), t);
      if (t.d != t.c) ++bad;
    }
    write_record(o.out_dir + "/mma/" + file_stem(in, scale_d) + ".txt", in, prop, scale_d, "not run", false, "", tiles);
    std::printf("%-70s tiles %4zu  C/D round trip %s  not representable: %zu", file_stem(in, scale_d).c_str(), tiles.size(),
                bad ? "FAIL" : "ok", skipped.size());
    for (auto& sk : skipped) std::printf(" [%s]", sk.c_str());
    std::printf("\n");
  }
  return bad ? 1 : 0;
}

// Child: one instruction (both scale-d values for wgmma). Writes its files and a status file.
int run_child(const Instr& in, const Options& o) {
  cudaDeviceProp prop{};
  cudaError_t e = cudaGetDeviceProperties(&prop, 0);
  std::ofstream status(o.out_dir + "/mma/" + file_stem(in, 1) + ".status");
  if (e != cudaSuccess) {
    status << in.spelling << " cuda-error " << cudaGetErrorString(e) << "\n";
    return 1;
  }
  int rc = 0;
  const uint64_t seed = 0x6d6d615f7265ull + static_cast<uint64_t>(in.id);  // fixed per instruction
  std::vector<int> scales = in.wgmma ? std::vector<int>{1, 0} : std::vector<int>{1};
  for (int scale_d : scales) {
    const double t0 = now_s();
    // Descriptor conventions to try: the PTX ISA's (LBO = K-direction stride) first.
    std::vector<std::pair<uint32_t, uint32_t>> convs = in.wgmma ? std::vector<std::pair<uint32_t, uint32_t>>{{128, 256}, {256, 128}}
                                                                : std::vector<std::pair<uint32_t, uint32_t>>{{0, 0}};
    std::vector<Tile> checks;
    for (int i = 0; i < 4; ++i) checks.push_back(layout_check_tile(in.tf, seed, i));
    std::string layout = "FAIL", err, first, desc_note;
    bool valid = false;
    uint32_t lbo = convs[0].first, sbo = convs[0].second;
    for (auto [l, s] : convs) {
      lbo = l;
      sbo = s;
      std::vector<Tile> tries = checks;
      if (!run_tiles(in, tries, l, s, scale_d, err)) {
        layout = "ERROR " + err;
        break;
      }
      int bad = 0;
      std::string f1;
      for (const Tile& t : tries) bad += layout_mismatches(in, t, scale_d, f1);
      if (first.empty()) first = f1;
      if (bad == 0) {
        valid = true;
        checks = tries;
        layout = "PASS (4 tiles of small integers, exact)";
        break;
      }
      layout = "FAIL (" + std::to_string(bad) + " of " + std::to_string(4 * in.tf.m * in.tf.n) + " elements; first " + first + ")";
      checks = tries;
    }
    if (in.wgmma) {
      desc_note = "descriptor LBO=" + std::to_string(lbo) + " SBO=" + std::to_string(sbo) + " bytes";
      if (valid && lbo != 128) desc_note += " (the second convention tried: LBO and SBO swapped relative to the PTX ISA text)";
    }
    if (layout.rfind("ERROR", 0) == 0) {
      status << file_stem(in, scale_d) << " ERROR " << layout << "\n";
      status.flush();
      rc = 1;
      break;  // the CUDA context is unusable after a kernel fault
    }
    std::vector<std::string> skipped;
    const int n_random = in.wgmma ? (scale_d ? o.random_wg : std::max(1, o.random_wg / 4)) : o.random;
    std::vector<Tile> tiles = build_tiles(in, n_random, seed ^ static_cast<uint64_t>(scale_d), skipped);
    if (!run_tiles(in, tiles, lbo, sbo, scale_d, err)) {
      status << file_stem(in, scale_d) << " ERROR " << err << "\n";
      rc = 1;
      break;
    }
    tiles.insert(tiles.begin(), checks.begin(), checks.end());
    write_record(o.out_dir + "/mma/" + file_stem(in, scale_d) + ".txt", in, prop, scale_d, layout, valid, desc_note, tiles);
    status << file_stem(in, scale_d) << (valid ? " VALID" : " INVALID") << " tiles=" << tiles.size() << " layout_check=" << layout
           << (in.wgmma ? " " + desc_note : "") << " seconds=" << (now_s() - t0);
    if (!skipped.empty()) {
      status << " probes_not_representable=";
      for (size_t i = 0; i < skipped.size(); ++i) status << (i ? "|" : "") << skipped[i];
    }
    status << "\n";
    status.flush();
  }
  return rc;
}

// Runs each instruction of `todo` in its own child process, o.jobs at a time; returns how
// each child ended (indexed by instruction).
std::vector<std::string> run_children(const std::vector<int>& todo, const Options& o, int n_instr) {
  // Children are forked before this process touches CUDA (a CUDA context does not survive fork).
  struct Running { pid_t pid; int index; double start; };
  std::vector<Running> running;
  std::vector<std::string> outcome(n_instr, "not run");
  size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < o.jobs) {
      const int idx = todo[next++];
      std::fflush(stdout);
      const pid_t pid = ::fork();
      if (pid == 0) {
        const int rc = run_child(kInstrs[idx], o);
        std::fflush(stdout);
        ::_exit(rc);
      }
      if (pid < 0) { outcome[idx] = "fork failed"; continue; }
      running.push_back({pid, idx, now_s()});
    }
    ::usleep(20000);
    for (size_t r = 0; r < running.size();) {
      int st = 0;
      const pid_t w = ::waitpid(running[r].pid, &st, WNOHANG);
      const double age = now_s() - running[r].start;
      if (w == 0 && age > o.child_timeout) {
        ::kill(running[r].pid, SIGKILL);
        ::waitpid(running[r].pid, &st, 0);
        outcome[running[r].index] = "killed after " + std::to_string(o.child_timeout) + " s (hung)";
      } else if (w == 0) {
        ++r;
        continue;
      } else if (WIFEXITED(st)) {
        outcome[running[r].index] = WEXITSTATUS(st) == 0 ? "ok" : "exit " + std::to_string(WEXITSTATUS(st));
      } else if (WIFSIGNALED(st)) {
        outcome[running[r].index] = "signal " + std::to_string(WTERMSIG(st));
      }
      logf("%-66s %s (%.1f s)\n", kInstrs[running[r].index].spelling, outcome[running[r].index].c_str(), age);
      running.erase(running.begin() + static_cast<long>(r));
    }
  }
  return outcome;
}

// mma_summary.txt: the children's status lines, or what happened to a child that wrote none.
// Returns the number of VALID records and of the others.
std::pair<int, int> write_summary(const std::vector<int>& todo, const std::vector<std::string>& outcome, const Options& o,
                                  const std::string& dir) {
  std::ofstream sum(o.out_dir + "/mma_summary.txt");
  sum << "# tools/gpu/mma_record: instruction[_scale-dN] status tiles layout_check ... (files in mma_record.tar.gz)\n";
  int valid = 0, other = 0;
  for (int idx : todo) {
    std::ifstream st(dir + "/" + file_stem(kInstrs[idx], 1) + ".status");
    std::string line;
    bool any = false;
    while (std::getline(st, line)) {
      sum << line << "\n";
      any = true;
      (line.find(" VALID ") != std::string::npos ? valid : other)++;
    }
    if (!any) { sum << kInstrs[idx].spelling << " NO-RESULT process: " << outcome[idx] << "\n"; ++other; }
    else if (outcome[idx] != "ok") sum << "#   " << kInstrs[idx].spelling << " process: " << outcome[idx] << "\n";
    std::remove((dir + "/" + file_stem(kInstrs[idx], 1) + ".status").c_str());
  }
  return {valid, other};
}

}  // namespace

int main(int argc, char** argv) {
  const int n_instr = static_cast<int>(sizeof(kInstrs) / sizeof(kInstrs[0]));
  Options o;
  if (const int rc = parse_mma_record_args(argc, argv, n_instr, o); rc >= 0) return rc;
  now_s();
  if (o.list) {
    for (const Instr& in : kInstrs) std::printf("%s\n", in.spelling);
    return 0;
  }
  if (o.child >= 0) return run_child(kInstrs[o.child], o);  // in range (parse_mma_record_args)

  const std::string dir = o.out_dir + "/mma";
  ::mkdir(o.out_dir.c_str(), 0755);
  ::mkdir(dir.c_str(), 0755);
  if (o.host_dry_run) {
    int rc = 0;
    for (int i = 0; i < n_instr; ++i)
      if (o.only.empty() || std::string(kInstrs[i].spelling).find(o.only) != std::string::npos) rc |= host_dry_run(kInstrs[i], o);
    return rc;
  }
  std::vector<int> todo;
  for (int i = 0; i < n_instr; ++i)
    if (o.only.empty() || std::string(kInstrs[i].spelling).find(o.only) != std::string::npos) todo.push_back(i);
  logf("mma_record: %zu instructions, %d at a time, child timeout %d s\n", todo.size(), o.jobs, o.child_timeout);

  const std::vector<std::string> outcome = run_children(todo, o, n_instr);
  const auto [valid, other] = write_summary(todo, outcome, o, dir);
  logf("mma_record: %d records VALID, %d not; summary in %s/mma_summary.txt\n", valid, other, o.out_dir.c_str());
  return 0;
}
