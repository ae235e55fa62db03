// mma_record (mma_record.cu): operand layouts (packing a tile into the registers and shared
// memory images of one instruction, unpacking D), running tiles on the GPU and the layout
// self-check. Included by mma_record.cu inside its anonymous namespace, after the
// instruction table; not a standalone header.
#pragma once

// ---- host: operand layouts -------------------------------------------------------------
// The formulas are fragment_layout.hpp's (PTX ISA "Matrix Fragments for mma.m16n8k*" and
// wgmma's, tested in tests/gpu), the ones tcemu-gpu uses: mma_sync_coord, elem_reg and
// elem_shift for mma.sync A, B and C/D; wgmma_c_coord for wgmma C/D (4 warps, rows offset by
// 16 per warp); A and B of wgmma in shared memory, K-major, no swizzle (kmajor_offset): 8x16-
// byte core matrices, K-direction core matrices 128 bytes apart, M/N-direction ones 256.

uint64_t fmt_mask(Fmt f) { return fmt_bits(f) >= 64 ? ~uint64_t{0} : (uint64_t{1} << fmt_bits(f)) - 1; }

struct Packed {
  std::vector<uint32_t> a, b, c;  // mma.sync fragments, or wgmma C (a, b empty)
  std::vector<uint8_t> a_img, b_img;
};

// The mma.sync operand class of an instruction (A and B share their element width in every
// instruction here).
layout::MmaSyncShape sync_shape(const Instr& in) {
  return {in.tf.m, in.tf.n, in.tf.k, fmt_bits(in.tf.a), fmt_bits(in.tf.c)};
}
// Position of C/D element i of thread tid and where its code sits: register, bit shift.
struct CSlot {
  layout::Coord at;
  int reg, shift;
};
CSlot c_slot(const Instr& in, int tid, int i) {
  const int bits = fmt_bits(in.tf.c);
  if (in.wgmma) return {layout::wgmma_c_coord(tid, i), i * bits / 32, i * bits % 32};
  const layout::MmaSyncShape sh = sync_shape(in);
  return {layout::mma_sync_coord(sh, layout::Operand::C, tid, i), layout::elem_reg(sh, layout::Operand::C, i),
          layout::elem_shift(sh, layout::Operand::C, i)};
}
int c_elems(const Instr& in) { return in.rc * (32 / fmt_bits(in.tf.c)); }

void pack_tile(const Instr& in, const Tile& t, Packed& p) {
  const TileFormats& tf = in.tf;
  const int K = tf.k, N = tf.n;
  const int threads = in.wgmma ? 128 : 32;
  const size_t cbase = p.c.size();
  p.c.resize(cbase + threads * 4, 0);
  for (int tid = 0; tid < threads; ++tid)
    for (int i = 0; i < c_elems(in); ++i) {
      const CSlot s = c_slot(in, tid, i);
      p.c[cbase + tid * 4 + s.reg] |= static_cast<uint32_t>((t.c[s.at.row * N + s.at.col] & fmt_mask(tf.c)) << s.shift);
    }
  if (!in.wgmma) {
    const size_t base = p.a.size();
    p.a.resize(base + 128, 0);
    p.b.resize(base + 128, 0);
    const layout::MmaSyncShape sh = sync_shape(in);
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < layout::mma_elems_per_lane(sh, layout::Operand::A); ++i) {
        const layout::Coord at = layout::mma_sync_coord(sh, layout::Operand::A, lane, i);
        p.a[base + lane * 4 + layout::elem_reg(sh, layout::Operand::A, i)] |=
            static_cast<uint32_t>((t.a[at.row * K + at.col] & fmt_mask(tf.a)) << layout::elem_shift(sh, layout::Operand::A, i));
      }
      for (int i = 0; i < layout::mma_elems_per_lane(sh, layout::Operand::B); ++i) {
        const layout::Coord at = layout::mma_sync_coord(sh, layout::Operand::B, lane, i);
        p.b[base + lane * 4 + layout::elem_reg(sh, layout::Operand::B, i)] |=
            static_cast<uint32_t>((t.b[at.row * N + at.col] & fmt_mask(tf.b)) << layout::elem_shift(sh, layout::Operand::B, i));
      }
    }
    return;
  }
  const size_t abase = p.a_img.size(), bbase = p.b_img.size();
  p.a_img.resize(abase + kWgAImage, 0);
  p.b_img.resize(bbase + kWgBImage, 0);
  auto put = [](uint8_t* img, int row, int k, int bits, uint64_t code) {
    const uint32_t off = layout::kmajor_offset(row, k, bits, 128, 256);
    for (int i = 0; i < bits / 8; ++i) img[off + i] = static_cast<uint8_t>(code >> (8 * i));
  };
  for (int m = 0; m < tf.m; ++m)
    for (int k = 0; k < K; ++k) put(&p.a_img[abase], m, k, fmt_bits(tf.a), t.a[m * K + k]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) put(&p.b_img[bbase], n, k, fmt_bits(tf.b), t.b[k * N + n]);
}

void unpack_d(const Instr& in, const uint32_t* fd, Tile& t) {
  const TileFormats& tf = in.tf;
  const int threads = in.wgmma ? 128 : 32;
  t.d.assign(tf.m * tf.n, 0);
  for (int tid = 0; tid < threads; ++tid)
    for (int i = 0; i < c_elems(in); ++i) {
      const CSlot s = c_slot(in, tid, i);
      t.d[s.at.row * tf.n + s.at.col] = (fd[tid * 4 + s.reg] >> s.shift) & fmt_mask(tf.d);
    }
}

// Runs tiles on the GPU; false (with a message) on any CUDA error.
bool run_tiles(const Instr& in, std::vector<Tile>& tiles, uint32_t lbo, uint32_t sbo, int scale_d, std::string& err) {
  if (tiles.empty()) return true;
  Packed p;
  for (const Tile& t : tiles) pack_tile(in, t, p);
  const int threads = in.wgmma ? 128 : 32;
  const size_t nd = tiles.size() * threads * 4;
  uint32_t *da = nullptr, *db = nullptr, *dc = nullptr, *dd = nullptr;
  uint8_t *ia = nullptr, *ib = nullptr;
  auto fail = [&](cudaError_t e, const char* what) {
    err = std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    return false;
  };
  cudaError_t e;
  if ((e = cudaMalloc(&dc, nd * 4)) || (e = cudaMalloc(&dd, nd * 4))) return fail(e, "cudaMalloc");
  if ((e = cudaMemcpy(dc, p.c.data(), nd * 4, cudaMemcpyHostToDevice))) return fail(e, "copy C");
  if (!in.wgmma) {
    if ((e = cudaMalloc(&da, nd * 4)) || (e = cudaMalloc(&db, nd * 4))) return fail(e, "cudaMalloc");
    if ((e = cudaMemcpy(da, p.a.data(), nd * 4, cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(db, p.b.data(), nd * 4, cudaMemcpyHostToDevice)))
      return fail(e, "copy A/B");
    in.mma(static_cast<int>(tiles.size()), da, db, dc, dd);
  } else {
    if ((e = cudaMalloc(&ia, p.a_img.size())) || (e = cudaMalloc(&ib, p.b_img.size()))) return fail(e, "cudaMalloc");
    if ((e = cudaMemcpy(ia, p.a_img.data(), p.a_img.size(), cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(ib, p.b_img.data(), p.b_img.size(), cudaMemcpyHostToDevice)))
      return fail(e, "copy A/B images");
    in.wg(static_cast<int>(tiles.size()), ia, ib, dc, dd, lbo, sbo, scale_d);
  }
  if ((e = cudaGetLastError())) return fail(e, "launch");
  if ((e = cudaDeviceSynchronize())) return fail(e, "kernel");
  std::vector<uint32_t> hd(nd);
  if ((e = cudaMemcpy(hd.data(), dd, nd * 4, cudaMemcpyDeviceToHost))) return fail(e, "copy D");
  for (size_t i = 0; i < tiles.size(); ++i) unpack_d(in, &hd[i * threads * 4], tiles[i]);
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd); cudaFree(ia); cudaFree(ib);
  return true;
}

// Exact product of a layout-check tile (small integers: every datapath is exact).
int layout_mismatches(const Instr& in, const Tile& t, int scale_d, std::string& first) {
  const TileFormats& tf = in.tf;
  int bad = 0;
  for (int m = 0; m < tf.m; ++m)
    for (int n = 0; n < tf.n; ++n) {
      double s = scale_d ? value_of(tf.c, t.c[m * tf.n + n]) : 0.0;
      for (int k = 0; k < tf.k; ++k) s += value_of(tf.a, t.a[m * tf.k + k]) * value_of(tf.b, t.b[k * tf.n + n]);
      const double got = value_of(tf.d, t.d[m * tf.n + n]);
      if (got != s) {
        if (bad == 0) {
          std::ostringstream os;
          os << "D[" << m << "][" << n << "] = " << got << ", expected " << s;
          first = os.str();
        }
        ++bad;
      }
    }
  return bad;
}
