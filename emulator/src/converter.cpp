// The array API: specialised kernels for the hot conversions, the scalar core otherwise.
//
// - f32 to a float format with subnormals (f16, bf16, e4m3, e5m2, e3m2, e2m3, e2m1) in
//   rn/rna/rz/rd/ru, with or without satfinite, default NaN policy: one branch-free integer
//   kernel per destination and mode (F32ToNarrow in converter_kernels.hpp), vectorised by the compiler for
//   AVX-512, AVX2 and baseline x86-64 and chosen at run time.
// - 8- and 16-bit sources: a table of every code's result, built once per Converter by the
//   first run() long enough to pay for it (a short one converts element by element).
// Every kernel is checked against the scalar core over all inputs by tests/convert.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "tcemu/convert.hpp"
#include "tcemu/parallel.hpp"
#include "converter_kernels.hpp"

namespace tcemu {

namespace detail {

namespace {
std::atomic<int> g_isa_limit{static_cast<int>(ConvertIsa::avx512)};
}

// What the CPU has is read on any x86-64 GCC/clang build: the fast MMA kernels
// (mma_fast_kernels.hpp) are built there even where the conversion kernels are not.
ConvertIsa convert_isa() {
#if defined(__GNUC__) && defined(__x86_64__)
  static const ConvertIsa cpu = [] {
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
      return ConvertIsa::avx512;
    if (__builtin_cpu_supports("avx2")) return ConvertIsa::avx2;
    return ConvertIsa::baseline;
  }();
#else
  const ConvertIsa cpu = ConvertIsa::baseline;
#endif
  return static_cast<ConvertIsa>(std::min(static_cast<int>(cpu), g_isa_limit.load(std::memory_order_relaxed)));
}

void limit_convert_isa(ConvertIsa most) { g_isa_limit.store(static_cast<int>(most), std::memory_order_relaxed); }

}  // namespace detail

namespace {

template <typename T>
T load(const void* p, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(p) + i * sizeof(T), sizeof(T));
  return v;
}

uint64_t load_code(const void* p, size_t bytes, size_t i) {
  switch (bytes) {
    case 1: return static_cast<const uint8_t*>(p)[i];
    case 2: return load<uint16_t>(p, i);
    case 4: return load<uint32_t>(p, i);
    default: return load<uint64_t>(p, i);
  }
}

void store_code(void* p, size_t bytes, size_t i, uint64_t v) {
  unsigned char* b = static_cast<unsigned char*>(p) + i * bytes;
  switch (bytes) {
    case 1: *b = static_cast<uint8_t>(v); break;
    case 2: { uint16_t t = static_cast<uint16_t>(v); std::memcpy(b, &t, 2); break; }
    case 4: { uint32_t t = static_cast<uint32_t>(v); std::memcpy(b, &t, 4); break; }
    default: std::memcpy(b, &v, 8); break;
  }
}

template <Fmt D, bool SAT>
void (*f32_kernel_for(Round r))(const void*, void*, size_t) {
  switch (r) {
    case Round::rn: return &detail::F32ToNarrow<D, Round::rn, SAT>::run;
    case Round::rna: return &detail::F32ToNarrow<D, Round::rna, SAT>::run;
    case Round::rz: return &detail::F32ToNarrow<D, Round::rz, SAT>::run;
    case Round::rd: return &detail::F32ToNarrow<D, Round::rd, SAT>::run;
    case Round::ru: return &detail::F32ToNarrow<D, Round::ru, SAT>::run;
    default: return nullptr;
  }
}

template <Fmt D>
void (*f32_kernel(const ConvertOptions& o))(const void*, void*, size_t) {
  return o.satfinite ? f32_kernel_for<D, true>(o.round) : f32_kernel_for<D, false>(o.round);
}

// The options under which the f32 kernels compute exactly what the scalar core does.
bool f32_kernel_applies(const ConvertOptions& o) {
  return o.round != Round::rs && !o.relu && !o.ftz && o.nan_out == NanOut::canonical &&
         o.nan_to_finite == NanToFinite::plus_max && o.inf_satfinite && !o.overflow_undefined &&
         !o.finite_overflow_to_max;
}

}  // namespace

struct Converter::Table {
  std::once_flag once;
  std::atomic<bool> ready{false};
  std::vector<uint64_t> codes;
};

Converter::Converter(Fmt from, Fmt to, const ConvertOptions& opt) : from_(from), to_(to), opt_(opt) {
  if (from == Fmt::f32 && f32_kernel_applies(opt)) {
    switch (to) {
      case Fmt::f16: kernel_ = f32_kernel<Fmt::f16>(opt); break;
      case Fmt::bf16: kernel_ = f32_kernel<Fmt::bf16>(opt); break;
      case Fmt::e4m3: kernel_ = f32_kernel<Fmt::e4m3>(opt); break;
      case Fmt::e5m2: kernel_ = f32_kernel<Fmt::e5m2>(opt); break;
      case Fmt::e3m2: kernel_ = f32_kernel<Fmt::e3m2>(opt); break;
      case Fmt::e2m3: kernel_ = f32_kernel<Fmt::e2m3>(opt); break;
      case Fmt::e2m1: kernel_ = f32_kernel<Fmt::e2m1>(opt); break;
      default: break;
    }
  }
  if (!kernel_ && info(from).width <= 16 && opt.round != Round::rs) table_ = std::make_shared<Table>();
}

// The table when it is built, or when a run of n elements pays for building it (the 2^w
// conversions of the table cost at most 16 times the run's own); else nullptr.
const uint64_t* Converter::ready_table(size_t n) const {
  if (!table_) return nullptr;
  const size_t size = size_t{1} << info(from_).width;
  if (!table_->ready.load(std::memory_order_acquire)) {
    if (n * 16 < size) return nullptr;
    std::call_once(table_->once, [&] {
      table_->codes.resize(size);
      for (size_t c = 0; c < size; ++c) table_->codes[c] = convert(from_, to_, c, opt_).code;
      table_->ready.store(true, std::memory_order_release);
    });
  }
  return table_->codes.data();
}

void Converter::run(const void* src, void* dst, size_t n, const uint32_t* rbits, const Exec& exec) const {
  if (needs_rbits() && rbits == nullptr)
    throw std::invalid_argument("Converter::run: stochastic rounding (rs) needs one random word per element");
  constexpr size_t chunk = size_t{1} << 16;
  const int threads = n >= chunk ? thread_count(exec) : 1;
  ready_table(n);  // built before the threads start (they read it)
  if (threads <= 1) {
    run_serial(src, dst, n, rbits);
    return;
  }
  const size_t sb = container_bytes(from_), db = container_bytes(to_);
  parallel_for((n + chunk - 1) / chunk, Exec{threads}, [&](size_t c) {
    const size_t i = c * chunk;
    run_serial(static_cast<const unsigned char*>(src) + i * sb, static_cast<unsigned char*>(dst) + i * db,
               std::min(chunk, n - i), rbits ? rbits + i : nullptr);
  });
}

void Converter::run_serial(const void* src, void* dst, size_t n, const uint32_t* rbits) const {
  if (kernel_) { kernel_(src, dst, n); return; }
  const size_t sb = container_bytes(from_), db = container_bytes(to_);
  if (const uint64_t* t = ready_table(n)) {
    const uint64_t mask = (uint64_t{1} << info(from_).width) - 1;
    if (sb == 1 && db == 1) {
      const uint8_t* in = static_cast<const uint8_t*>(src);
      uint8_t* out = static_cast<uint8_t*>(dst);
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(t[in[i] & mask]);
      return;
    }
    if (sb == 1 && db == 4) {
      const uint8_t* in = static_cast<const uint8_t*>(src);
      uint32_t* out = static_cast<uint32_t*>(dst);
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(t[in[i] & mask]);
      return;
    }
    for (size_t i = 0; i < n; ++i) store_code(dst, db, i, t[load_code(src, sb, i) & mask]);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    store_code(dst, db, i, convert(from_, to_, load_code(src, sb, i), opt_, rbits ? rbits[i] : 0).code);
}

}  // namespace tcemu
