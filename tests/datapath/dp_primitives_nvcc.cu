// Compiled (not run) by nvcc in the test datapath_primitives_nvcc_test: every primitive of
// emulator/src/dp_primitives.hpp called from a __global__ kernel, so that the header stays
// usable as CUDA __host__ __device__ code (no std library, no exceptions, no host-only calls).
#include "dp_primitives.hpp"
// Together with the CUDA backend's own header (its TCEMU_HD macro is a different one).
#include "gpu_common.hpp"

namespace {

__global__ void every_primitive(const uint64_t* in, uint64_t* out) {
  using namespace tcemu;
  const uint64_t x = in[threadIdx.x];
  const int sh = static_cast<int>(x & 127) - 64;
  uint64_t r = 0;
  r ^= static_cast<uint64_t>(dp::imax(sh, 3) + dp::imin(sh, 5) + dp::iclamp(sh, -3, 3) + dp::bit_width(x));
  r ^= static_cast<uint64_t>(dp::apply_sign(x >> 1, static_cast<unsigned>(x & 1)));
  r ^= dp::magnitude(static_cast<int64_t>(x));
  r ^= dp::shift_trunc(x, sh) ^ dp::align_trunc(x >> 1, sh & 63);
  r ^= static_cast<uint64_t>(dp::aligned_term(x >> 1, 3, 1, sh & 31));
  bool sticky = false;
  r ^= dp::shift_right_sticky(x, sh & 127, &sticky) ^ (sticky ? 1 : 0);
  const dp::FloatLayout f = dp::output_layout(static_cast<OutputRounding>(x % 5));
  r ^= dp::sign_bit(f) ^ dp::inf_code(f, x & 1) ^ dp::nan_code(f);
  const Operand c = dp::decode_acc(dp::f32_layout(), x);
  r ^= dp::round_out(dp::f16_layout(), x & 1, x >> 3, sh, sticky, (x & 2) != 0);
  r ^= dp::round_output(static_cast<OutputRounding>(x % 5), x & 1, x >> 5, sh);
  r ^= dp::positive_zero_rule(true, dp::f32_layout(), r) ^ dp::round_sum(OutputRounding::rz_e8m13, true, static_cast<int64_t>(x), sh);
  dp::SpecialScan s;
  const Operand* factors[2] = {&c, nullptr};
  dp::scan_term(s, factors, 2);
  dp::scan_acc(s, c);
  r ^= dp::special_code(s, dp::f16_layout());
  r ^= dp::add_rne_f32(static_cast<uint32_t>(x), static_cast<uint32_t>(x >> 32)) ^ dp::add_rne_f16(x & 0xFFFF, (x >> 16) & 0xFFFF);
  r ^= dp::int32_result(static_cast<int64_t>(x), (x & 4) != 0);
  out[threadIdx.x] = r;
}

}  // namespace

// Host side of the same header in the same translation unit (the __host__ half of TCEMU_DP_HD).
uint64_t dp_primitives_host_use(uint64_t x) { return tcemu::dp::round_sum(tcemu::OutputRounding::rne_f16, false, static_cast<int64_t>(x), -20); }

void dp_primitives_launch(const uint64_t* in, uint64_t* out) { every_primitive<<<1, 32>>>(in, out); }
