// An M x N x K case of a catalog entry on small integers ([-3, 3] in A, [-2, 2] in B, [-8, 8] in
// C) with power-of-two block scales 2^((row + row/32 + block) % 4) and 2^((col + 2 block) % 4):
// every datapath computes these products and sums exactly, so D equals the exact result whatever
// the rounding model, and an operand or scale in the wrong place (rows 32 apart, the two CTAs of
// a tcgen05 pair, included) changes D. Shared by device_test.cpp and tcgen05_runner_test.cpp.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu_gpu_test {

inline tcemu::golden::Case small_integer_case(const tcemu::InstrEntry& e, const std::string& arch, int M, int N, int K,
                                              int tile_m, int tile_n) {
  namespace tg = tcemu::golden;
  const bool integer = e.params.kind == tcemu::DatapathKind::integer;
  const tg::ElemType acc = tg::elem_type(tcemu::acc_format(e.dtype));
  tg::Case c;
  c.name = "small-integers";
  c.op = tg::OpKind::mma;
  c.mma.arch = arch, c.mma.ptx = e.ptx, c.mma.entry = &e;
  c.mma.atype = e.atype, c.mma.btype = e.btype, c.mma.dtype = e.dtype, c.mma.stype = e.scale_type;
  c.mma.M = M, c.mma.N = N, c.mma.K = K, c.mma.tile_m = tile_m, c.mma.tile_n = tile_n;
  auto code = [](tcemu::Fmt f, int v) {
    if (!tcemu::info(f).is_signed) v = std::abs(v);
    if (tcemu::info(f).is_int) return static_cast<uint64_t>(static_cast<int64_t>(v)) & tcemu::info(f).code_mask();
    return *tcemu::encode_exact(f, v < 0, static_cast<uint64_t>(std::abs(v)), 0);
  };
  std::vector<uint64_t> A(M * K), B(K * N), C(M * N);
  for (int i = 0; i < M * K; ++i) A[i] = code(e.atype, (i * 5 + i / K) % 7 - 3);
  for (int i = 0; i < K * N; ++i) B[i] = code(e.btype, (i * 3 + 1 + i / N) % 5 - 2);
  for (int i = 0; i < M * N; ++i)
    C[i] = integer ? static_cast<uint64_t>(i % 17 - 8) & 0xffffffffu : code(tcemu::acc_format(e.dtype), i % 17 - 8);
  c.operands["A"] = tg::make_array(tg::elem_type(e.atype), M, K, A);
  c.operands["B"] = tg::make_array(tg::elem_type(e.btype), K, N, B);
  c.operands["C"] = tg::make_array(acc, M, N, C);
  if (e.scale_type) {
    const int nb = K / e.scale_block;
    std::vector<uint64_t> sa(M * nb), sb(N * nb);
    for (int r = 0; r < M; ++r)
      for (int j = 0; j < nb; ++j) sa[r * nb + j] = *tcemu::encode_exact(*e.scale_type, false, 1, (r + r / 32 + j) % 4);
    for (int n = 0; n < N; ++n)
      for (int j = 0; j < nb; ++j) sb[n * nb + j] = *tcemu::encode_exact(*e.scale_type, false, 1, (n + 2 * j) % 4);
    c.operands["scale_A"] = tg::make_array(tg::elem_type(*e.scale_type), M, nb, sa);
    c.operands["scale_B"] = tg::make_array(tg::elem_type(*e.scale_type), N, nb, sb);
  }
  c.expected = tg::make_array(acc, M, N, C);
  return c;
}

}  // namespace tcemu_gpu_test
