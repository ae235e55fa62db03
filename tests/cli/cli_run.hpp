// Running the tcemu command line from a test: a scratch directory, whole-file reads and
// writes, and one run of `tcemu ARGS` with its exit status, stdout and stderr kept apart.
// Shared by the command-line tests of tests/cli (hostile input, first-use friction).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#ifndef TCEMU_CLI
#error "TCEMU_CLI (the tcemu executable) must be defined by the test's CMake target"
#endif

namespace tcemu_test {

// The command line to run: TCEMU_CLI from the environment where set (a test binary run on
// another machine, as tools/gpu/session.sh does, or the Python tests' variable of the same
// name), else the build's, compiled in.
inline std::string cli_path() {
  const char* env = std::getenv("TCEMU_CLI");
  return env && *env ? env : TCEMU_CLI;
}

// A directory of this process under the system's temporary directory: <tmp>/<prefix><pid>.
inline std::string tmpdir(const std::string& prefix) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
  std::filesystem::create_directories(p);
  return p.string();
}

// The whole file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void put(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

struct CliRun {
  int rc = -1;  // the exit status; 128 + the signal's number when a signal ended it
  std::string out, err;
};

// Whether this test (and so the tcemu of the same build) is built with AddressSanitizer.
constexpr bool kAsan =
#if defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

// Runs `tcemu ARGS` with `input` on stdin, in `dir`'s files. With limit_memory, no single
// allocation of 1 GiB or more can succeed, so a command that allocates what a lying header
// claims fails loudly instead of passing: `ulimit -v` in a plain build; in an ASan build
// (whose shadow memory needs far more address space than that) ASan's own
// max_allocation_size_mb.
inline CliRun run_tcemu(const std::string& dir, const std::string& args, const std::string& input = "",
                        bool limit_memory = false) {
  put(dir + "/stdin", input);
  std::string limit;
  if (limit_memory)
    limit = kAsan ? "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=1024\" " : "ulimit -v 1048576; ";
  const std::string cmd = limit + cli_path() + " " + args + " < " + dir + "/stdin > " + dir + "/stdout 2> " + dir + "/stderr";
  const int st = std::system(cmd.c_str());
  CliRun r;
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = slurp(dir + "/stdout");
  r.err = slurp(dir + "/stderr");
  return r;
}

}  // namespace tcemu_test
