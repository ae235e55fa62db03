// cvt_check (cvt_check.cu): the host-side comparison of a chunk of hardware results with the
// emulator (ptx_cvt_eval, or Converter::run for the bulk of a sweep), and its tally. Included
// by cvt_check.cu inside its anonymous namespace, after the shape helpers; not a standalone
// header.
#pragma once

// A chunk of inputs: gen(g, base + j) for j < n.
struct Chunk {
  Gen g;
  uint64_t base = 0;
  uint32_t n = 0;
};

struct Mismatch {
  Regs r;
  uint64_t hw, emu;
};

struct Tally {
  uint64_t checked = 0;
  uint64_t mismatches = 0;
  std::vector<Mismatch> first;  // at most kKeep
  std::string error;            // the emulator threw
};
constexpr size_t kKeep = 50;
constexpr uint32_t kChunk = 1u << 24;

unsigned host_threads() {
  unsigned t = std::thread::hardware_concurrency();
  return t == 0 ? 4 : std::min(t, 64u);
}

// How the expected results are computed. ptx_cvt_eval is the contract and is used for every
// directed input, every packed-source variant and 1 in kEvalEvery sweep inputs. For f32/f64
// element-wise variants the rest of a sweep goes through tcemu::Converter::run with the very
// options parse_ptx_cvt chose (many times faster where the library has a specialised kernel),
// packing pair results as PTX does (a in the high field). --eval-only turns that off.
constexpr uint64_t kEvalEvery = 64;
struct Expect {
  const tcemu::PtxCvt* pc = nullptr;
  int nregs = 1;
  std::optional<tcemu::Converter> conv;  // set when the bulk path applies
  int elem_bits = 0;                     // destination field width of one element
  size_t src_bytes = 4, dst_bytes = 2;   // Converter containers
};

Expect make_expect(const tcemu::PtxCvt& pc, int nregs, bool eval_only) {
  Expect e;
  e.pc = &pc;
  e.nregs = nregs;
  // The sm_90 NaN quirk of cvt.rna.satfinite.tf32.f32 is applied by ptx_cvt_eval only, not by
  // the Converter: that variant never takes the bulk path.
  const bool elementwise = !pc.src_packed && !pc.has_rbits && !pc.sm90_tf32_satfinite_nan && pc.src_count == pc.dst_count &&
                           (pc.src == tcemu::Fmt::f32 || pc.src == tcemu::Fmt::f64) && pc.src_count == nregs;
  if (!eval_only && elementwise) {
    e.conv.emplace(pc.src, pc.dst, pc.options);
    e.elem_bits = tcemu::ptx_cvt_dst_bits(pc) / pc.dst_count;
    e.src_bytes = tcemu::container_bytes(pc.src);
    e.dst_bytes = tcemu::container_bytes(pc.dst);
  }
  return e;
}

uint64_t load_le(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // x86-64: little-endian, as the Converter containers are
  return v;
}

// Compares hw[j] with the emulator for j < n, on every core.
void compare_chunk(const Expect& ex, const Chunk& c, const uint64_t* hw, Tally& tally) {
  const unsigned T = host_threads();
  std::vector<Tally> part(T);
  std::vector<std::thread> threads;
  const uint64_t per = (c.n + T - 1) / T;
  const int nregs = ex.nregs;
  const bool rbits = ex.pc->has_rbits;
  for (unsigned t = 0; t < T; ++t) {
    threads.emplace_back([&, t] {
      const uint64_t lo = t * per, hi = std::min<uint64_t>(c.n, lo + per);
      Tally& p = part[t];
      auto check = [&](uint64_t j, const Regs& r, uint64_t emu) {
        if (emu != hw[j]) {
          ++p.mismatches;
          if (p.first.size() < kKeep) p.first.push_back({r, hw[j], emu});
        }
      };
      try {
        if (!ex.conv) {
          for (uint64_t j = lo; j < hi; ++j) {
            Regs r;
            gen(c.g, c.base + j, r);
            check(j, r, tcemu::ptx_cvt_eval(*ex.pc, std::span<const uint64_t>(r.s, nregs), rbits ? r.rbits : 0));
          }
        } else {
          constexpr uint64_t kBlock = 4096;
          std::vector<Regs> rr(kBlock);
          std::vector<uint8_t> sa(kBlock * 8), sb(kBlock * 8), da(kBlock * 8), db(kBlock * 8);
          for (uint64_t j0 = lo; j0 < hi; j0 += kBlock) {
            const uint64_t m = std::min(kBlock, hi - j0);
            for (uint64_t k = 0; k < m; ++k) {
              gen(c.g, c.base + j0 + k, rr[k]);
              std::memcpy(&sa[k * ex.src_bytes], &rr[k].s[0], ex.src_bytes);
              std::memcpy(&sb[k * ex.src_bytes], &rr[k].s[1], ex.src_bytes);
            }
            ex.conv->run(sa.data(), da.data(), m);
            if (nregs > 1) ex.conv->run(sb.data(), db.data(), m);
            for (uint64_t k = 0; k < m; ++k) {
              const uint64_t j = j0 + k;
              uint64_t emu;
              if (((c.base + j) % kEvalEvery) == 0) {
                emu = tcemu::ptx_cvt_eval(*ex.pc, std::span<const uint64_t>(rr[k].s, nregs));
              } else if (nregs > 1) {
                emu = (load_le(&da[k * ex.dst_bytes], ex.dst_bytes) << ex.elem_bits) |
                      load_le(&db[k * ex.dst_bytes], ex.dst_bytes);
              } else {
                emu = load_le(&da[k * ex.dst_bytes], ex.dst_bytes);
              }
              check(j, rr[k], emu);
            }
          }
        }
        p.checked = hi > lo ? hi - lo : 0;
      } catch (const std::exception& e) {
        p.error = e.what();
      } catch (...) {
        p.error = "unknown exception";
      }
    });
  }
  for (auto& th : threads) th.join();
  for (auto& p : part) {
    tally.checked += p.checked;
    tally.mismatches += p.mismatches;
    for (auto& m : p.first)
      if (tally.first.size() < kKeep) tally.first.push_back(m);
    if (!p.error.empty() && tally.error.empty()) tally.error = p.error;
  }
}
