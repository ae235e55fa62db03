// mma_record (mma_record.cu): operand layouts (packing a tile into the registers and shared
// memory images of one instruction, unpacking D), running tiles on the GPU and the layout
// self-check. Included by mma_record.cu inside its anonymous namespace, after the
// instruction table; not a standalone header.
#pragma once

// ---- host: operand layouts -------------------------------------------------------------
// mma.sync fragments (PTX ISA "Matrix Fragments for mma.m16n8k*"): lane = 4*g + t.
//   A, register r, element e (EA elements per register): m = g + 8*(r&1),
//     k = EA*t + e + (K/2)*(r>>1)
//   B: k = EB*t + e + (K/2)*r, n = g
//   C/D, element i = r*EC + e: m = g + 8*(i>>1), n = 2t + (i&1)
// wgmma: C/D as above in each warp w of the warpgroup, rows offset by 16w; A and B in shared
// memory, K-major, no swizzle: 8x16-byte core matrices, K-direction core matrices 128 bytes
// apart, M/N-direction ones 256 bytes apart.

uint64_t fmt_mask(Fmt f) { return fmt_bits(f) >= 64 ? ~uint64_t{0} : (uint64_t{1} << fmt_bits(f)) - 1; }

struct Packed {
  std::vector<uint32_t> a, b, c;  // mma.sync fragments, or wgmma C (a, b empty)
  std::vector<uint8_t> a_img, b_img;
};

void pack_tile(const Instr& in, const Tile& t, Packed& p) {
  const TileFormats& tf = in.tf;
  const int K = tf.k, N = tf.n;
  const int ea = 32 / fmt_bits(tf.a), eb = 32 / fmt_bits(tf.b), ec = 32 / fmt_bits(tf.c);
  const int threads = in.wgmma ? 128 : 32;
  const size_t cbase = p.c.size();
  p.c.resize(cbase + threads * 4, 0);
  for (int tid = 0; tid < threads; ++tid) {
    const int lane = tid % 32, w = tid / 32, g = lane / 4, tt = lane % 4;
    for (int r = 0; r < in.rc; ++r)
      for (int e = 0; e < ec; ++e) {
        const int i = r * ec + e, m = 16 * w + g + 8 * (i >> 1), n = 2 * tt + (i & 1);
        p.c[cbase + tid * 4 + r] |= static_cast<uint32_t>((t.c[m * N + n] & fmt_mask(tf.c)) << (e * fmt_bits(tf.c)));
      }
  }
  if (!in.wgmma) {
    const size_t base = p.a.size();
    p.a.resize(base + 128, 0);
    p.b.resize(base + 128, 0);
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, tt = lane % 4;
      for (int r = 0; r < in.ra; ++r)
        for (int e = 0; e < ea; ++e) {
          const int m = g + 8 * (r & 1), k = ea * tt + e + (K / 2) * (r >> 1);
          p.a[base + lane * 4 + r] |= static_cast<uint32_t>((t.a[m * K + k] & fmt_mask(tf.a)) << (e * fmt_bits(tf.a)));
        }
      for (int r = 0; r < in.rb; ++r)
        for (int e = 0; e < eb; ++e) {
          const int k = eb * tt + e + (K / 2) * r, n = g;
          p.b[base + lane * 4 + r] |= static_cast<uint32_t>((t.b[k * N + n] & fmt_mask(tf.b)) << (e * fmt_bits(tf.b)));
        }
    }
    return;
  }
  const size_t abase = p.a_img.size(), bbase = p.b_img.size();
  p.a_img.resize(abase + kWgAImage, 0);
  p.b_img.resize(bbase + kWgBImage, 0);
  auto put = [](uint8_t* img, int row, int k, int bytes, uint64_t code) {
    const int kb = k * bytes;
    const int off = (row / 8) * 256 + (kb / 16) * 128 + (row % 8) * 16 + kb % 16;
    for (int i = 0; i < bytes; ++i) img[off + i] = static_cast<uint8_t>(code >> (8 * i));
  };
  const int ba = fmt_bits(tf.a) / 8, bb = fmt_bits(tf.b) / 8;
  for (int m = 0; m < tf.m; ++m)
    for (int k = 0; k < K; ++k) put(&p.a_img[abase], m, k, ba, t.a[m * K + k]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) put(&p.b_img[bbase], n, k, bb, t.b[k * N + n]);
}

void unpack_d(const Instr& in, const uint32_t* fd, Tile& t) {
  const TileFormats& tf = in.tf;
  const int ec = 32 / fmt_bits(tf.d), threads = in.wgmma ? 128 : 32;
  t.d.assign(tf.m * tf.n, 0);
  for (int tid = 0; tid < threads; ++tid) {
    const int lane = tid % 32, w = tid / 32, g = lane / 4, tt = lane % 4;
    for (int r = 0; r < in.rc; ++r)
      for (int e = 0; e < ec; ++e) {
        const int i = r * ec + e, m = 16 * w + g + 8 * (i >> 1), n = 2 * tt + (i & 1);
        t.d[m * tf.n + n] = (fd[tid * 4 + r] >> (e * fmt_bits(tf.d))) & fmt_mask(tf.d);
      }
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
