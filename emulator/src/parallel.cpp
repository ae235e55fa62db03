// The parallel loop of parallel.hpp over OpenMP (or serial where the compiler has none).
#include "tcemu/parallel.hpp"

#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tcemu {

namespace {

// TCEMU_NUM_THREADS: 0 when unset, -1 when malformed, else the count.
int env_threads() {
  const char* s = std::getenv("TCEMU_NUM_THREADS");
  if (s == nullptr || *s == '\0') return 0;
  long v = 0;
  for (const char* p = s; *p; ++p) {
    if (*p < '0' || *p > '9' || v > kMaxThreads) return -1;
    v = v * 10 + (*p - '0');
  }
  return v >= 1 && v <= kMaxThreads ? static_cast<int>(v) : -1;
}

int cores() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

bool in_parallel() {
#ifdef _OPENMP
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

}  // namespace

std::string threads_env_error() {
  return env_threads() < 0 ? "TCEMU_NUM_THREADS must be an integer from 1 to 4096" : "";
}

int thread_count(const Exec& exec) {
  if (exec.threads < 0 || exec.threads > kMaxThreads)
    throw std::invalid_argument("thread count " + std::to_string(exec.threads) + " is not in 0.." +
                                std::to_string(kMaxThreads));
  if (exec.threads > 0) return exec.threads;
  const int env = env_threads();
  if (env < 0) throw std::invalid_argument(threads_env_error());
  return env > 0 ? env : cores();
}

void parallel_for(size_t n, const Exec& exec, const std::function<void(size_t)>& body) {
  const int t = thread_count(exec);
  if (t <= 1 || n < 2 || in_parallel()) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::vector<std::exception_ptr> errors(n);
  const long long count = static_cast<long long>(n);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
#endif
  for (long long i = 0; i < count; ++i) {
    try {
      body(static_cast<size_t>(i));
    } catch (...) {
      errors[static_cast<size_t>(i)] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace tcemu
