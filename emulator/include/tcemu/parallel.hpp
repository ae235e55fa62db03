// How many threads tcemu's whole-array operations use (whole-matrix MMA, array conversions,
// golden generation), and the one parallel loop they share (OpenMP from the compiler).
// Results never depend on the thread count: work is split into independent pieces (rows of D,
// chunks of an array, golden cases) that each compute exactly what the serial loop computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tcemu {

// Where a computation runs: "cpu", "cuda" (device 0) or "cuda:N".
struct DeviceSpec {
  enum class Kind : uint8_t { cpu, cuda } kind = Kind::cpu;
  int index = 0;  // the CUDA device ordinal (kind cuda)
  static constexpr DeviceSpec cuda(int index = 0) { return DeviceSpec{Kind::cuda, index}; }
};
// Parses "cpu", "cuda", "cuda:N"; nullopt for anything else.
std::optional<DeviceSpec> parse_device(std::string_view s);
std::string to_string(const DeviceSpec& d);

// How a computation is executed, passed by value: on how many threads, on which device (a CUDA
// device: the whole-matrix MMA only, tcemu/mma.hpp; every other operation runs on the CPU).
struct Exec {
  // > 0: that many threads. 0: the environment variable TCEMU_NUM_THREADS when set, else
  // every core OpenMP sees (its OMP_NUM_THREADS, else the number of cores).
  int threads = 0;
  DeviceSpec device{};
};

// The thread count `exec` resolves to (>= 1). Throws std::invalid_argument when
// TCEMU_NUM_THREADS is needed and is not an integer in 1..kMaxThreads, or when
// exec.threads is negative or above kMaxThreads.
inline constexpr int kMaxThreads = 4096;
int thread_count(const Exec& exec = {});

// "" when TCEMU_NUM_THREADS is unset or valid, else what is wrong with it (for the CLI,
// which reports it and exits 2 before doing any work).
std::string threads_env_error();

// Calls body(i) for every i in [0, n), spread over thread_count(exec) threads (dynamic
// schedule). Runs serially when one thread is asked for, n < 2, or the caller is already
// inside a parallel loop (nested loops do not multiply threads). The first exception a body
// throws (lowest i among those thrown) is rethrown once every body has finished.
void parallel_for(size_t n, const Exec& exec, const std::function<void(size_t)>& body);

}  // namespace tcemu
