// Internal: the branch-free f32 -> narrow float kernels of converter.cpp (F32ToNarrow), shared
// with the fast quantizers (quant_fast_kernels.cpp), which cast scaled elements with them.
// Every kernel is checked against the scalar core over all inputs by tests/convert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tcemu/convert.hpp"
#include "tcemu/format.hpp"
#include "converter_isa.hpp"

// The f32 kernels are compiled three times, for x86-64-v4 (AVX-512F/BW/DQ/VL), for AVX2 and
// for the baseline, and picked at run time from what the CPU has (and the tests' limit).
// Everything a kernel calls is forced inline so that it is compiled for the kernel's ISA.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TCEMU_CVT_X86 1
#define TCEMU_CVT_HOT inline __attribute__((always_inline))
#else
#define TCEMU_CVT_HOT inline
#endif

namespace tcemu::detail {

// f32 -> narrow float format D, rounding R, saturation SAT. Branch-free per element:
//   mag = ((grid binade - dest emin binade) << m) + rounded significand
// which makes the rounding carry ripple into the exponent field, as in hardware.
template <Fmt D, Round R, bool SAT>
struct F32ToNarrow {
  static constexpr FormatInfo fi = info(D);
  static constexpr int m = fi.man_bits;
  static constexpr int32_t emin_b = fi.emin() + 127;  // dest's smallest normal, f32-biased
  static constexpr uint32_t max_mag =
      static_cast<uint32_t>(((fi.emax() + fi.bias) << m) | (fi.max_sig() & ((1u << m) - 1)));
  static constexpr uint32_t inf_mag = fi.has_inf() ? static_cast<uint32_t>(((1u << fi.exp_bits) - 1) << m)
                                      : fi.has_nan() ? static_cast<uint32_t>((1u << (fi.exp_bits + m)) - 1)
                                                     : max_mag;
  static constexpr uint32_t nan_code = fi.has_nan() ? static_cast<uint32_t>((1u << (fi.exp_bits + m)) - 1) : max_mag;
  static constexpr int sign_shift = fi.width - 1;
  using Out = std::conditional_t<(fi.width <= 8), uint8_t, uint16_t>;

  static TCEMU_CVT_HOT Out one(uint32_t u) {
    const uint32_t sign = u >> 31;
    const uint32_t a = u & 0x7fffffffu;
    const int32_t eb = static_cast<int32_t>(a >> 23);
    const uint32_t mant = (a & 0x7fffffu) | (eb ? 0x800000u : 0u);
    const int32_t e1 = eb ? eb : 1;
    const int32_t eg = e1 > emin_b ? e1 : emin_b;
    int32_t shift = (23 - m) + (eg - e1);
    shift = shift < 31 ? shift : 31;
    uint32_t kept = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    uint32_t up;
    if constexpr (R == Round::rn) up = (rem > half) | ((rem == half) & kept);
    else if constexpr (R == Round::rna) up = rem >= half;
    else if constexpr (R == Round::rz) up = 0;
    else if constexpr (R == Round::ru) up = (sign ^ 1u) & (rem != 0);
    else up = sign & (rem != 0);  // rd
    kept += up & 1u;
    const uint32_t mag = (static_cast<uint32_t>(eg - emin_b) << m) + kept;
    // Overflow target without saturation: rounding toward zero gives MAX (IEEE).
    uint32_t ovf;
    if constexpr (SAT || R == Round::rz) ovf = max_mag;
    else if constexpr (R == Round::ru) ovf = sign ? max_mag : inf_mag;
    else if constexpr (R == Round::rd) ovf = sign ? inf_mag : max_mag;
    else ovf = inf_mag;
    uint32_t r = mag > max_mag ? ovf : mag;
    const bool is_inf = a == 0x7f800000u;
    r = is_inf ? (SAT ? max_mag : inf_mag) : r;
    r |= sign << sign_shift;
    r = a > 0x7f800000u ? nan_code : r;  // NaN: canonical (formats without NaN: +MAX)
    return static_cast<Out>(r);
  }

  static TCEMU_CVT_HOT void loop(const void* src, void* dst, size_t n) {
    const uint32_t* in = static_cast<const uint32_t*>(src);
    Out* out = static_cast<Out*>(dst);
    for (size_t i = 0; i < n; ++i) out[i] = one(in[i]);
  }
  static void run_baseline(const void* src, void* dst, size_t n) { loop(src, dst, n); }
#ifdef TCEMU_CVT_X86
  __attribute__((target("avx2"))) static void run_avx2(const void* src, void* dst, size_t n) { loop(src, dst, n); }
  __attribute__((target("arch=x86-64-v4"))) static void run_avx512(const void* src, void* dst, size_t n) {
    loop(src, dst, n);
  }
#endif
  static void run(const void* src, void* dst, size_t n) {
#ifdef TCEMU_CVT_X86
    switch (detail::convert_isa()) {
      case detail::ConvertIsa::avx512: run_avx512(src, dst, n); return;
      case detail::ConvertIsa::avx2: run_avx2(src, dst, n); return;
      default: break;
    }
#endif
    run_baseline(src, dst, n);
  }
};

}  // namespace tcemu::detail
