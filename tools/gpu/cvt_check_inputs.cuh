// cvt_check (cvt_check.cu): the inputs of a variant (its directed set and its sweep chunks)
// and the host self-check of the bulk Converter path on them. Included by cvt_check.cu inside
// its anonymous namespace, after the comparison and the GPU pipeline; not a standalone header.
#pragma once

// The directed inputs of a variant, as operands.
std::vector<Regs> directed_inputs(const Variant& v) {
  const std::string src = last_token(v.spelling);
  std::vector<Regs> out;
  auto one = [&](uint64_t a, uint64_t b) {
    Regs r;
    r.s[0] = a;
    r.s[1] = b;
    out.push_back(r);
  };
  // Packed pairs: each code against the list reversed (a in the high field).
  auto pairs = [&](const std::vector<uint32_t>& x, int shift) {
    for (size_t i = 0; i < x.size(); ++i) one((static_cast<uint64_t>(x[i]) << shift) | x[x.size() - 1 - i], 0);
  };
  switch (v.shape) {
    case CvtShape::F32_B16: case CvtShape::F32_B32: case CvtShape::F32_F64: case CvtShape::F32_I8:
      for (uint32_t x : directed_f32()) one(x, 0);
      break;
    case CvtShape::F32P_B32: case CvtShape::F32P_B16: case CvtShape::F32P_B8: {
      auto x = directed_f32();
      for (size_t i = 0; i < x.size(); ++i) one(x[i], x[x.size() - 1 - i]);
      break;
    }
    case CvtShape::F32P_R_B32: case CvtShape::F32Q_R_B32: case CvtShape::F32Q_R_B16: {
      // Every directed value in each operand position, under every tie-deciding word.
      auto x = directed_f32();
      const size_t n = x.size();
      for (uint32_t k = 0; k < kRsPatterns; ++k)
        for (size_t i = 0; i < n; ++i) {
          Regs r;
          r.s[0] = x[i];
          r.s[1] = x[n - 1 - i];
          if (cvt_shape_info(v.shape).srcs == 4) {
            r.s[2] = x[(i + 7) % n];
            r.s[3] = x[(i + 13) % n];
          }
          r.rbits = rs_pattern(k);
          out.push_back(r);
        }
      break;
    }
    case CvtShape::B32_B16: pairs(src == "bf16x2" ? directed_bf16() : directed_f16(), 16); break;
    case CvtShape::B16_B32:
      if (src == "e2m3x2" || src == "e3m2x2") pairs(directed_fp6(), 8);
      else if (src == "ue8m0x2") pairs(directed_ue8m0(), 8);
      else pairs(directed_fp8(), 8);
      break;
    case CvtShape::B8_B32: case CvtShape::I8_F32:
      for (uint32_t x = 0; x < 256; ++x) one(x, 0);  // every code: also the recorded evidence
      break;
    case CvtShape::B16_F32: case CvtShape::B16_F64: case CvtShape::B16_B16:
      for (uint32_t x : (src == "bf16" ? directed_bf16() : directed_f16())) one(x, 0);
      break;
    case CvtShape::F64_F32: case CvtShape::F64_B16:
      for (uint64_t x : directed_f64()) one(x, 0);
      break;
  }
  return out;
}

// The sweep of a variant (f32 sources: all 256 chunks, cvt.rs: 64 random chunks; run_chunks
// stops at the budget).
std::vector<Chunk> sweep_chunks(const Variant& v) {
  std::vector<Chunk> out;
  const uint64_t seed = 0x7463656d75ull * 1000 + static_cast<uint64_t>(v.id);  // "tcemu", fixed
  switch (v.shape) {
    case CvtShape::F32_B16: case CvtShape::F32_B32: case CvtShape::F32_F64: case CvtShape::F32_I8:
    case CvtShape::F32P_B32: case CvtShape::F32P_B16: case CvtShape::F32P_B8:
      for (uint32_t k = 0; k < 256; ++k) {
        Chunk c;
        c.g.mode = GenMode::exh32_a;
        c.g.low = (k * 167u) & 255u;
        c.g.seed = seed;
        c.n = kChunk;
        out.push_back(c);
        if (is_pair(v.shape)) {
          c.g.mode = GenMode::exh32_b;
          c.g.fixed = 0x40490fdbu;  // pi: a normal partner in the high field
          out.push_back(c);
        }
      }
      break;
    case CvtShape::F32P_R_B32: case CvtShape::F32Q_R_B32: case CvtShape::F32Q_R_B16:
      for (uint32_t k = 0; k < 64; ++k) {
        Chunk c;
        c.g.mode = GenMode::rand_rs;
        c.g.seed = seed;
        c.base = uint64_t{k} * kChunk;
        c.n = kChunk;
        out.push_back(c);
      }
      break;
    case CvtShape::B16_B32: case CvtShape::B16_F32: case CvtShape::B16_F64: case CvtShape::B16_B16: {
      Chunk c;
      c.g.mode = GenMode::exh16;
      c.n = 65536;
      out.push_back(c);
      break;
    }
    case CvtShape::B8_B32: case CvtShape::I8_F32: {
      Chunk c;
      c.g.mode = GenMode::exh16;
      c.n = 256;
      out.push_back(c);
      break;
    }
    case CvtShape::B32_B16: {
      Chunk c;
      c.g.fixed = last_token(v.spelling) == "bf16x2" ? 0x3f80 : 0x3c00;  // 1.0 in the other half
      c.n = 65536;
      c.g.mode = GenMode::half_hi;
      out.push_back(c);
      c.g.mode = GenMode::half_lo;
      out.push_back(c);
      c.g.mode = GenMode::rand32;
      c.g.seed = seed;
      c.n = 1u << 20;
      out.push_back(c);
      break;
    }
    case CvtShape::F64_F32: case CvtShape::F64_B16:
      for (uint32_t k = 0; k < 4; ++k) {
        Chunk c;
        c.g.mode = GenMode::rand_f64;
        c.g.seed = seed;
        c.base = uint64_t{k} * kChunk;
        c.n = kChunk;
        out.push_back(c);
      }
      break;
  }
  return out;
}

// Host self-check, before any GPU work: the bulk Converter path must reproduce ptx_cvt_eval
// on 2^16 random inputs (plus the directed set). Where it does not, the variant falls back to
// ptx_cvt_eval alone, so a fast-path bug in the library cannot pass as a hardware mismatch.
bool bulk_path_consistent(const Variant& v, const Expect& ex, std::string& why) {
  if (!ex.conv) return true;
  Chunk c;
  c.g.mode = ex.pc->src == tcemu::Fmt::f64 ? GenMode::rand_f64 : GenMode::rand_pair;
  c.g.seed = 0x5e1fc4ecull + static_cast<uint64_t>(v.id);
  c.base = 1;  // keeps most indices off the kEvalEvery grid
  c.n = 1u << 16;
  std::vector<uint64_t> ref(c.n);
  for (uint32_t j = 0; j < c.n; ++j) {
    Regs r;
    gen(c.g, c.base + j, r);
    ref[j] = tcemu::ptx_cvt_eval(*ex.pc, std::span<const uint64_t>(r.s, ex.nregs));
  }
  Tally t;
  compare_chunk(ex, c, ref.data(), t);
  if (t.mismatches == 0 && t.error.empty()) return true;
  why = "Converter::run disagrees with ptx_cvt_eval on " + std::to_string(t.mismatches) + " of 65536" +
        (t.first.empty() ? std::string() : " (first a=" + hex(t.first[0].r.s[0], 8) + ": eval " + hex(t.first[0].hw, 8) +
                                               ", Converter " + hex(t.first[0].emu, 8) + ")") +
        (t.error.empty() ? std::string() : "; error: " + t.error);
  return false;
}
