// The instruction catalog. Each family below carries its evidence next to it; the values are
// docs/datapath.md §3 (datapath parameters) and PTX ISA §9.7.14-9.7.16 (shapes, operand types) [PTX].
#include "tcemu/catalog.hpp"

#include <algorithm>
#include <iterator>
#include <set>

namespace tcemu {

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::measured: return "measured";
    case Confidence::published: return "published";
    case Confidence::extrapolated: return "extrapolated";
    case Confidence::unknown: return "unknown";
  }
  return "?";
}

std::string_view to_string(AccType t) {
  switch (t) {
    case AccType::f16: return "f16";
    case AccType::f32: return "f32";
    case AccType::s32: return "s32";
  }
  return "?";
}

std::optional<AccType> parse_acc_type(std::string_view s) {
  if (s == "f16") return AccType::f16;
  if (s == "f32") return AccType::f32;
  if (s == "s32") return AccType::s32;
  return std::nullopt;
}

std::optional<Fmt> acc_format(AccType t) {
  if (t == AccType::f16) return Fmt::f16;
  if (t == AccType::f32) return Fmt::f32;
  return std::nullopt;
}

namespace {

using OR = OutputRounding;
using C = Confidence;

DatapathParams fdpa(int L, int F, int ez, OR r, CEntry ce = CEntry::fused) {
  DatapathParams p;
  p.kind = DatapathKind::t_fdpa;
  p.L = L;
  p.F = F;
  p.e_zero = ez;
  p.rounding = r;
  p.c_entry = ce;
  return p;
}

// Hopper mma.sync FP8 as measured on H200 (docs/hw-h200.md): operands widened to f16, the
// k32 instruction's products in two k-pair halves of 16, each one step of the f16 datapath
// (F = 25; f32: RZ, e_zero -133; f16: RNE, e_zero -22) chained from +0, then C added by one
// RNE add in the output format.
DatapathParams fp8_via_f16(OR r, bool positive_zero) {
  DatapathParams p = fdpa(16, 25, r == OR::rne_f16 ? -22 : -133, r, CEntry::rne_after_instruction);
  p.widen_to_f16 = true;
  p.kpair_halves = true;
  p.positive_zero = positive_zero;
  return p;
}

// Hopper results that round to zero are +0 (H200: no -0 in any record, docs/hw-h200.md).
DatapathParams pz(DatapathParams p) {
  p.positive_zero = true;
  return p;
}

DatapathParams integer(int K, bool sat) {
  DatapathParams p;
  p.kind = DatapathKind::integer;
  p.L = K;
  p.satfinite = sat;
  return p;
}

std::string fname(Fmt f) { return std::string(info(f).name); }
std::string aname(AccType t) { return std::string(to_string(t)); }
std::string shape(int m, int n, int k) { return "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k); }

// Per-architecture float parameters (docs/datapath.md §3).
struct ArchFloat {
  const char* arch;
  DatapathParams f16_f32, f16_f16, bf16_f32, tf32_f32;
  std::string evidence;
  C conf;
  std::string note;
};

const std::vector<ArchFloat>& arch_float() {
  static const std::vector<ArchFloat> v = {
      {"sm_70", fdpa(4, 23, -131, OR::rz_f32), fdpa(4, 23, -20, OR::rne_f16), {}, {},
       "[MS] [KM] [F21] [FT]; hw-vectors V100 fp16 -> fp32 and -> fp16 reproduced 2500/2500", C::measured,
       "f16-output e_zero: -20 (fits hw-vectors) vs [KM] -19"},
      {"sm_80", fdpa(8, 24, -132, OR::rz_f32), fdpa(8, 24, -21, OR::rne_f16), fdpa(8, 24, -132, OR::rz_f32),
       fdpa(4, 24, -132, OR::rz_f32),
       "[MS] [KM] [FT]; hw-vectors A100 fp16/bf16/tf32 reproduced 2500/2500", C::measured,
       "f16-output e_zero: -21 [MS] (fits hw-vectors) vs -20 [KM]"},
      {"sm_89", fdpa(8, 24, -132, OR::rz_f32), fdpa(8, 24, -21, OR::rne_f16), fdpa(8, 24, -132, OR::rz_f32),
       fdpa(4, 24, -132, OR::rz_f32),
       "[MS] [KM]; hw-vectors Ada fp16/bf16/tf32 reproduced 2500/2500", C::measured,
       "f16-output e_zero: -21 [MS] (fits hw-vectors) vs -20 [KM]"},
      {"sm_90", pz(fdpa(16, 25, -133, OR::rz_f32)), pz(fdpa(16, 25, -22, OR::rne_f16)), pz(fdpa(16, 25, -133, OR::rz_f32)),
       pz(fdpa(8, 25, -133, OR::rz_f32)),
       "[MS] [KM]; hw-vectors H100 fp16/bf16/tf32 reproduced 2500/2500; H200 records of mma.sync m16n8k16/k8 "
       "f16/bf16, k8/k4 tf32 reproduced bit for bit (golden/hw/h200)", C::measured,
       "f16-output e_zero: -22 [MS] vs -21 [KM]; the data cannot tell. Results that round to zero are +0 (H200)"},
      {"sm_100", fdpa(16, 25, -133, OR::rz_f32), fdpa(16, 25, -22, OR::rne_f16), fdpa(16, 25, -133, OR::rz_f32),
       fdpa(8, 25, -133, OR::rz_f32),
       "[MS]; hw-vectors B200 fp16/bf16/tf32 (wmma) reproduced 2500/2500", C::measured,
       "f16-output e_zero -22 fits hw-vectors; [MS] gives -133 for tcgen05"},
      {"sm_120", fdpa(16, 25, -133, OR::rz_f32), fdpa(16, 25, -22, OR::rne_f16), fdpa(16, 25, -133, OR::rz_f32),
       fdpa(8, 25, -133, OR::rz_f32), "[MS] (RTX Blackwell)", C::published, ""},
  };
  return v;
}

// The sm_90 instructions recorded on an H200 (golden/hw/h200, docs/hw-h200.md): the
// measured model reproduces every recorded bit of these.
bool h200_recorded(const std::string& ptx) {
  static const char* const kRecorded[] = {
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
      "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32",
      "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16",
      "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32",
  };
  return std::find(std::begin(kRecorded), std::end(kRecorded), ptx) != std::end(kRecorded);
}

const Fmt kF8F6F4[] = {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1};
bool is_fp6(Fmt f) { return f == Fmt::e3m2 || f == Fmt::e2m3; }

class Builder {
 public:
  std::vector<InstrEntry> out;

  InstrEntry& add(std::string arch, std::string ptx, std::string family, int M, int N, int K, Fmt a, Fmt b, AccType d,
                  DatapathParams p, std::string evidence, C conf, std::string note = "") {
    InstrEntry e;
    e.arch = std::move(arch);
    e.ptx = std::move(ptx);
    e.family = std::move(family);
    e.M = M;
    e.N = N;
    e.K = K;
    e.atype = a;
    e.btype = b;
    e.dtype = d;
    e.params = p;
    e.evidence = std::move(evidence);
    e.confidence = conf;
    e.note = std::move(note);
    out.push_back(std::move(e));
    return out.back();
  }

  // mma.sync / wmma float entries of one arch.
  void legacy_float(const ArchFloat& af) {
    const std::string a = af.arch;
    const bool v100 = a == "sm_70";
    auto f16_params = [&](AccType d) { return d == AccType::f32 ? af.f16_f32 : af.f16_f16; };
    for (AccType d : {AccType::f32, AccType::f16}) {
      const std::string t = aname(d);
      if (v100) {
        add(a, "mma.sync.aligned.m8n8k4.row.col." + t + ".f16.f16." + t, "mma.sync f16", 8, 8, 4, Fmt::f16, Fmt::f16, d,
            f16_params(d), af.evidence, af.conf, af.note);
      } else {
        for (int k : {8, 16})
          add(a, "mma.sync.aligned.m16n8k" + std::to_string(k) + ".row.col." + t + ".f16.f16." + t, "mma.sync f16", 16, 8,
              k, Fmt::f16, Fmt::f16, d, f16_params(d), af.evidence,
              (k < f16_params(d).L && af.conf == C::measured && a != "sm_90") ? C::extrapolated : af.conf,
              k < f16_params(d).L ? "K below L: the missing terms are zero products (e_zero)" : af.note);
      }
      for (const char* s : {"m16n16k16", "m32n8k16", "m8n32k16"})
        add(a, std::string("wmma.mma.sync.aligned.row.col.") + s + "." + t + "." + t, "wmma f16", s[1] == '3' ? 32 : (s[1] == '8' ? 8 : 16),
            s[1] == '3' ? 8 : (s[1] == '8' ? 32 : 16), 16, Fmt::f16, Fmt::f16, d, f16_params(d), af.evidence, af.conf, af.note);
    }
    if (v100) return;
    for (int k : {8, 16})
      add(a, "mma.sync.aligned.m16n8k" + std::to_string(k) + ".row.col.f32.bf16.bf16.f32", "mma.sync bf16", 16, 8, k,
          Fmt::bf16, Fmt::bf16, AccType::f32, af.bf16_f32, af.evidence,
          (k < af.bf16_f32.L && a != "sm_90") ? C::extrapolated : af.conf,
          k < af.bf16_f32.L ? "K below L: the missing terms are zero products (e_zero)" : af.note);
    for (int k : {4, 8})
      add(a, "mma.sync.aligned.m16n8k" + std::to_string(k) + ".row.col.f32.tf32.tf32.f32", "mma.sync tf32", 16, 8, k,
          Fmt::tf32, Fmt::tf32, AccType::f32, af.tf32_f32, af.evidence, af.conf,
          "operands read as bits & 0xFFFFE000 (PTX: tf32 truncates the low 13 bits)");
    for (const char* s : {"m16n16k16", "m32n8k16", "m8n32k16"})
      add(a, std::string("wmma.mma.sync.aligned.row.col.") + s + ".f32.bf16.bf16.f32", "wmma bf16",
          s[1] == '3' ? 32 : (s[1] == '8' ? 8 : 16), s[1] == '3' ? 8 : (s[1] == '8' ? 32 : 16), 16, Fmt::bf16, Fmt::bf16,
          AccType::f32, af.bf16_f32, af.evidence, af.conf, af.note);
    add(a, "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", "wmma tf32", 16, 16, 8, Fmt::tf32, Fmt::tf32,
        AccType::f32, af.tf32_f32, af.evidence, af.conf, "");
  }

  void legacy_int(const std::string& a, bool int4) {
    const std::string ev = "[PTX]: exact int32 sums, wrap or .satfinite clamp (integer arithmetic is exact by definition)";
    for (bool sat : {false, true}) {
      const std::string s = sat ? ".satfinite" : "";
      for (Fmt x : {Fmt::s8, Fmt::u8})
        for (Fmt y : {Fmt::s8, Fmt::u8})
          for (int k : {16, 32}) {
            const int m = 16;
            const bool h200 = a == "sm_90" && x == Fmt::s8 && y == Fmt::s8;  // recorded (golden/hw/h200)
            add(a, "mma.sync.aligned." + shape(m, 8, k) + ".row.col" + s + ".s32." + fname(x) + "." + fname(y) + ".s32",
                "mma.sync s8/u8", m, 8, k, x, y, AccType::s32, integer(k, sat),
                h200 ? ev + "; H200 records reproduced bit for bit (golden/hw/h200)" : ev,
                h200 ? C::measured : C::published);
          }
      if (int4)
        for (Fmt x : {Fmt::s4, Fmt::u4})
          for (Fmt y : {Fmt::s4, Fmt::u4})
            for (int k : {32, 64})
              add(a, "mma.sync.aligned." + shape(16, 8, k) + ".row.col" + s + ".s32." + fname(x) + "." + fname(y) + ".s32",
                  "mma.sync s4/u4", 16, 8, k, x, y, AccType::s32, integer(k, sat), ev, C::published);
      for (Fmt x : {Fmt::s8, Fmt::u8})
        add(a, "wmma.mma.sync.aligned.row.col.m16n16k16.s32." + fname(x) + "." + fname(x) + ".s32" + s, "wmma s8/u8", 16,
            16, 16, x, x, AccType::s32, integer(16, sat), ev, C::published);
    }
  }

  // mma.sync m16n8k32 and m16n8k16 e4m3/e5m2 (sm_89 onwards; k16 since PTX ISA 8.7). p32 / p16
  // are the parameters of the k32 instruction (f32 / f16 output); with k-pair halves the k16
  // instruction has L = 8 (its K / 2), otherwise the same L (K < L: padded with zero terms).
  // Entries the H200 recorded (docs/hw-h200.md) are `measured`.
  void legacy_fp8(const std::string& a, DatapathParams p32, DatapathParams p16, const std::string& ev, C conf32, C conf16,
                  const std::string& note32, const std::string& note16) {
    for (int K : {32, 16})
      for (Fmt x : {Fmt::e4m3, Fmt::e5m2})
        for (Fmt y : {Fmt::e4m3, Fmt::e5m2})
          for (AccType d : {AccType::f32, AccType::f16}) {
            const std::string t = aname(d);
            DatapathParams p = d == AccType::f32 ? p32 : p16;
            if (K == 16 && p.kpair_halves) p.L = 8;
            const std::string ptx =
                "mma.sync.aligned.m16n8k" + std::to_string(K) + ".row.col." + t + "." + fname(x) + "." + fname(y) + "." + t;
            C conf = d == AccType::f32 ? conf32 : conf16;
            std::string note = d == AccType::f32 ? note32 : note16;
            if (conf == C::measured && (a == "sm_90" ? !h200_recorded(ptx) : K == 16)) {
              conf = C::extrapolated;
              note = a == "sm_90" ? "not recorded on the H200: extrapolated from the recorded FP8 mma.sync instructions"
                                  : "k16 unmeasured: extrapolated from the measured k32 instruction";
            }
            add(a, ptx, "mma.sync e4m3/e5m2", 16, 8, K, x, y, d, p, ev, conf, note);
          }
  }

  void wgmma() {
    const std::string a = "sm_90a";
    const std::string ev16 =
        "[MS]; H200 records of wgmma m64n8k16 (scale-d 1 and 0) reproduced bit for bit (golden/hw/h200; N does not "
        "enter the per-element datapath)";
    const std::string h200 = " H200 records of wgmma m64n8 (scale-d 1 and 0) reproduced bit for bit (golden/hw/h200)";
    for (int n = 8; n <= 256; n += 8) {
      const std::string pre = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n);
      add(a, pre + "k16.f32.f16.f16", "wgmma f16", 64, n, 16, Fmt::f16, Fmt::f16, AccType::f32,
          pz(fdpa(16, 25, -133, OR::rz_f32)), ev16, C::measured);
      add(a, pre + "k16.f16.f16.f16", "wgmma f16", 64, n, 16, Fmt::f16, Fmt::f16, AccType::f16,
          pz(fdpa(16, 25, -22, OR::rne_f16)), "[MS];" + h200 + " with e_zero -22 and +0 results", C::measured,
          "e_zero: the H200 tie probe gives e_zero >= -22 and every record fits -22 .. -15 ([MS] says -133, "
          "[KM] -21 for mma.sync); -22 as sm_90 mma.sync");
      add(a, pre + "k16.f32.bf16.bf16", "wgmma bf16", 64, n, 16, Fmt::bf16, Fmt::bf16, AccType::f32,
          pz(fdpa(16, 25, -133, OR::rz_f32)), ev16, C::measured);
      add(a, pre + "k8.f32.tf32.tf32", "wgmma tf32", 64, n, 8, Fmt::tf32, Fmt::tf32, AccType::f32,
          pz(fdpa(8, 25, -133, OR::rz_f32)), "[MS] [KM];" + h200, C::measured,
          "operands read as bits & 0xFFFFE000 (PTX)");
      for (Fmt x : {Fmt::e4m3, Fmt::e5m2})
        for (Fmt y : {Fmt::e4m3, Fmt::e5m2}) {
          add(a, pre + "k32.f32." + fname(x) + "." + fname(y), "wgmma e4m3/e5m2", 64, n, 32, x, y, AccType::f32,
              pz(fdpa(32, 13, -133, OR::rz_e8m13)),
              "[MS] [KM] [DS]; hw-vectors H100 E4M3/E5M2 -> fp32 (C = 0) 2500/2500;" + h200 + " (C enters the fused sum)",
              C::measured);
          const bool recorded16 = x == y;  // f16.e4m3.e4m3 and f16.e5m2.e5m2 were recorded
          add(a, pre + "k32.f16." + fname(x) + "." + fname(y), "wgmma e4m3/e5m2", 64, n, 32, x, y, AccType::f16,
              pz(fdpa(32, 13, -133, OR::rne_f16)),
              recorded16 ? "[MS];" + h200 + " with +0 results" : "[MS]; the H200 records of the same-type mixes",
              recorded16 ? C::measured : C::extrapolated,
              "e_zero: records fit every value <= -19, -133 [MS] kept. hw-vectors H100 FP8 -> fp16 rows come from "
              "mma.sync (reproduced by that entry), not wgmma");
        }
      const bool int_n = n <= 24 || n % 16 == 0;  // PTX: N = 8, 16, 24, 32, 48, ..., 256 for k32 integers
      if (int_n)
        for (bool sat : {false, true})
          for (Fmt x : {Fmt::s8, Fmt::u8})
            for (Fmt y : {Fmt::s8, Fmt::u8})
              add(a, pre + "k32" + (sat ? ".satfinite" : "") + ".s32." + fname(x) + "." + fname(y), "wgmma s8/u8", 64, n,
                  32, x, y, AccType::s32, integer(32, sat), "[PTX]: exact int32 sums;" + h200,
                  x == Fmt::s8 && y == Fmt::s8 ? C::measured : C::published);
    }
  }

  void tcgen05() {
    const std::string a = "sm_100a";
    for (int cg : {1, 2}) {
      const std::string pre = "tcgen05.mma.cta_group::" + std::to_string(cg) + ".kind::";
      const int M = cg == 1 ? 128 : 256, N = 256;
      auto t = [&](std::string kind, std::string fam, int K, Fmt x, Fmt y, AccType d, DatapathParams p, std::string ev, C c,
                   std::string note = "") -> InstrEntry& {
        InstrEntry& e = add(a, pre + kind, "tcgen05 kind::" + fam, M, N, K, x, y, d, p, std::move(ev), c, std::move(note));
        e.types_in_descriptor = true;
        return e;
      };
      for (Fmt x : {Fmt::f16, Fmt::bf16}) {
        t("f16", "f16", 16, x, x, AccType::f32, fdpa(16, 25, -133, OR::rz_f32), "[MS]; sm_100 wmma hw-vectors B200 fit",
          C::published, "scale-input-d: D = A*B + D*2^-s (mma.hpp option)");
        if (x == Fmt::f16)
          t("f16", "f16", 16, x, x, AccType::f16, fdpa(16, 25, -133, OR::rne_f16), "[MS]", C::published,
            "f16-output e_zero -133 [MS]; sm_100 wmma fits -22");
      }
      t("tf32", "tf32", 8, Fmt::tf32, Fmt::tf32, AccType::f32, fdpa(8, 25, -133, OR::rz_f32), "[MS] [KM]", C::published);
      for (Fmt x : kF8F6F4)
        for (Fmt y : kF8F6F4)
          for (AccType d : {AccType::f32, AccType::f16}) {
            const bool fp6 = is_fp6(x) || is_fp6(y);
            t("f8f6f4", "f8f6f4", 32, x, y, d,
              d == AccType::f32 ? fdpa(32, 25, -133, OR::rz_f32) : fdpa(32, 25, -133, OR::rne_f16),
              "[MS] (e4m3, e5m2, e2m1)", fp6 ? C::extrapolated : C::published,
              fp6 ? "FP6 inside f8f6f4 unmeasured: extrapolated from e4m3/e2m1" : "");
          }
      for (Fmt x : {Fmt::s8, Fmt::u8})
        for (Fmt y : {Fmt::s8, Fmt::u8})
          t("i8", "i8", 32, x, y, AccType::s32, integer(32, false), "[PTX]: exact int32 sums", C::published);
      block_scaled(a, pre, "", M, N, true);
    }
  }

  // kind::mxf8f6f4, mxf4, mxf4nvf4 (tcgen05 on sm_100a, mma.sync on sm_120a).
  void block_scaled(const std::string& a, const std::string& pre, const std::string& mma_suffix_shape, int M, int N,
                    bool descriptor) {
    DatapathParams st = fdpa(32, 25, -133, OR::rz_f32);
    st.kind = DatapathKind::st_fdpa;
    DatapathParams gst = fdpa(64, 35, -139, OR::rz_f32);
    gst.kind = DatapathKind::gst_fdpa;
    gst.group = 16;
    const std::string st_ev = "[MS] (ST-FDPA)", gst_ev = "[MS] (GST-FDPA)";
    const std::string gst_note = "F = 35 from [MS]; other probes say at least 25 and 34-37 (open question)";
    auto ent = [&](std::string kind_sv, std::string fam, int K, Fmt x, Fmt y, DatapathParams p, Fmt s, int block, int vec,
                   std::string ev, C c, std::string note) {
      std::string ptx;
      if (descriptor) ptx = pre + kind_sv;
      else
        ptx = "mma.sync.aligned.m16n8k" + std::to_string(K) + ".row.col.kind::" + kind_sv + ".f32." + fname(x) + "." +
              fname(y) + ".f32." + fname(s);
      (void)mma_suffix_shape;
      InstrEntry& e = add(a, ptx, (descriptor ? "tcgen05 kind::" : "mma.sync kind::") + fam, M, N, K, x, y, AccType::f32, p,
                          std::move(ev), c, std::move(note));
      e.scale_type = s;
      e.scale_block = block;
      e.scale_vec = vec;
      e.types_in_descriptor = descriptor;
    };
    for (Fmt x : kF8F6F4)
      for (Fmt y : kF8F6F4) {
        const bool fp6 = is_fp6(x) || is_fp6(y);
        ent("mxf8f6f4.block_scale.scale_vec::1X", "mxf8f6f4", 32, x, y, st, Fmt::ue8m0, 32, 1, st_ev,
            fp6 ? C::extrapolated : C::published, fp6 ? "FP6 elements unmeasured: extrapolated" : "");
      }
    ent("mxf4.block_scale.scale_vec::2X", "mxf4", 64, Fmt::e2m1, Fmt::e2m1, gst, Fmt::ue8m0, 32, 2, gst_ev, C::published,
        gst_note + "; E2M1 exponent floor (emin 0) unverified");
    ent("mxf4nvf4.block_scale.scale_vec::2X", "mxf4nvf4", 64, Fmt::e2m1, Fmt::e2m1, gst, Fmt::ue8m0, 32, 2, gst_ev,
        C::published, gst_note);
    // mma.sync takes scale_vec::4X with ue4m3 only: ptxas (CUDA 13.0) rejects ".scale_vec::4X"
    // with ".ue8m0" for sm_120a (found by tools/gpu compiling every catalog spelling).
    if (descriptor)
      ent("mxf4nvf4.block_scale.scale_vec::4X", "mxf4nvf4", 64, Fmt::e2m1, Fmt::e2m1, gst, Fmt::ue8m0, 16, 4, gst_ev,
          C::published, gst_note);
    ent("mxf4nvf4.block_scale.scale_vec::4X", "mxf4nvf4", 64, Fmt::e2m1, Fmt::e2m1, gst, Fmt::ue4m3, 16, 4, gst_ev,
        C::published, gst_note + "; ue4m3 sign bit ignored");
  }

  void sm120() {
    const std::string a = "sm_120a";
    for (Fmt x : kF8F6F4)
      for (Fmt y : kF8F6F4)
        for (AccType d : {AccType::f32, AccType::f16}) {
          const std::string t = aname(d);
          const bool fp6 = is_fp6(x) || is_fp6(y);
          add(a, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4." + t + "." + fname(x) + "." + fname(y) + "." + t,
              "mma.sync kind::f8f6f4", 16, 8, 32, x, y, d,
              d == AccType::f32 ? fdpa(32, 25, -133, OR::rz_f32) : fdpa(32, 25, -22, OR::rne_f16), "[MS]",
              fp6 ? C::extrapolated : C::published,
              fp6 ? "FP6 elements unmeasured: extrapolated" : (d == AccType::f16 ? "f16-output e_zero -22 [MS]" : ""));
        }
    block_scaled(a, "", "", 16, 8, false);
  }
};

std::vector<InstrEntry> build() {
  Builder b;
  for (const ArchFloat& af : arch_float()) b.legacy_float(af);
  for (const char* a : {"sm_80", "sm_89"}) b.legacy_int(a, true);
  for (const char* a : {"sm_90", "sm_100", "sm_120"}) b.legacy_int(a, false);
  const ArchFloat& ada = arch_float()[2];
  (void)ada;
  b.legacy_fp8("sm_89", fdpa(16, 13, -132, OR::rz_e8m13), fdpa(16, 13, -21, OR::rne_f16),
               "[MS] [KM]; hw-vectors Ada E4M3/E5M2 -> fp32 and -> fp16 reproduced 2500/2500", C::measured, C::measured,
               "K = 32 is two chained 16-term steps", "K = 32 is two chained 16-term steps");
  b.legacy_fp8("sm_90", fp8_via_f16(OR::rz_f32, true), fp8_via_f16(OR::rne_f16, true),
               "measured on H200 (golden/hw/h200, docs/hw-h200.md): two f16 steps over k-pair halves from +0, then "
               "C by an RNE add; also reproduces hw-vectors H100 E4M3/E5M2 -> fp16 2500/2500",
               C::measured, C::measured,
               "hw-vectors H100 FP8 -> fp32 (C = 0) rows fit the wgmma model instead (another lowering upstream; open)",
               "f16-output e_zero -22 assumed from sm_90 f16 (the records cannot tell)");
  b.legacy_fp8("sm_100", fp8_via_f16(OR::rz_f32, false), fp8_via_f16(OR::rne_f16, false),
               "the Hopper lowering measured on H200 (docs/hw-h200.md) reproduces hw-vectors B200 E4M3/E5M2 -> fp32 "
               "and -> fp16 2500/2500 each",
               C::measured, C::measured,
               "the L = 32 'C added after' fit matches the fp32 rows too; the fp16 rows need the k-pair halves",
               "f16-output e_zero -22 assumed (the rows cannot tell); -0 results: not measured");
  b.legacy_fp8("sm_120", fdpa(32, 25, -133, OR::rz_f32), fdpa(32, 25, -22, OR::rne_f16),
               "extrapolated from sm_120a kind::f8f6f4 [MS]", C::extrapolated, C::extrapolated,
               "sm_120 mma.sync FP8 unmeasured: assumed to be kind::f8f6f4's datapath",
               "sm_120 mma.sync FP8 unmeasured: assumed to be kind::f8f6f4's datapath");
  b.wgmma();
  b.tcgen05();
  b.sm120();
  return std::move(b.out);
}

std::vector<std::string> split_tokens(std::string_view s, bool& satfinite) {
  std::vector<std::string> t;
  satfinite = false;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('.', i);
    if (j == std::string_view::npos) j = s.size();
    std::string tok(s.substr(i, j - i));
    if (tok == "satfinite") satfinite = true;
    else if (tok != "row" && tok != "col" && !tok.empty()) t.push_back(tok);
    i = j + 1;
  }
  return t;
}

std::string base_arch(std::string_view arch) {
  std::string a(arch);
  if (!a.empty() && (a.back() == 'a' || a.back() == 'f')) a.pop_back();
  return a;
}

}  // namespace

std::span<const InstrEntry> catalog() {
  static const std::vector<InstrEntry> entries = build();
  return entries;
}

InstrLookup find_instruction(std::string_view arch, std::string_view ptx, std::optional<Fmt> atype,
                             std::optional<Fmt> btype, std::optional<AccType> dtype, std::optional<Fmt> stype) {
  bool sat = false;
  const std::vector<std::string> want = split_tokens(ptx, sat);
  const std::string exact(arch), base = base_arch(arch);
  std::vector<const InstrEntry*> hits;
  std::set<std::string> other_archs;
  for (const InstrEntry& e : catalog()) {
    bool esat = false;
    if (split_tokens(e.ptx, esat) != want || esat != sat) continue;
    if (e.arch != exact && e.arch != base) {
      other_archs.insert(e.arch);
      continue;
    }
    if (atype && e.atype != *atype) continue;
    if (btype && e.btype != *btype) continue;
    if (dtype && e.dtype != *dtype) continue;
    if (stype && e.scale_type != stype) continue;
    hits.push_back(&e);
  }
  InstrLookup r;
  if (hits.size() == 1) {
    r.entry = hits[0];
    return r;
  }
  if (hits.empty()) {
    r.error = "no instruction '" + std::string(ptx) + "' on " + exact;
    if (!other_archs.empty()) {
      r.error += " (it exists on:";
      for (const std::string& a : other_archs) r.error += " " + a;
      r.error += ")";
    } else {
      r.error += " with these types (see `tcemu instr list`)";
    }
    return r;
  }
  // Several: the spelling leaves types to flags (tcgen05) or the scale type is open.
  std::set<std::string> a, b, d, s;
  for (const InstrEntry* e : hits) {
    a.insert(fname(e->atype));
    b.insert(fname(e->btype));
    d.insert(aname(e->dtype));
    if (e->scale_type) s.insert(fname(*e->scale_type));
  }
  r.error = "'" + std::string(ptx) + "' on " + exact + " needs its types:";
  auto list = [&](const char* flag, const std::set<std::string>& v) {
    if (v.size() < 2) return;
    r.error += std::string(" ") + flag + " {";
    bool first = true;
    for (const std::string& x : v) {
      r.error += (first ? "" : ",") + x;
      first = false;
    }
    r.error += "}";
  };
  list("--atype", a);
  list("--btype", b);
  list("--dtype", d);
  list("--stype", s);
  return r;
}

}  // namespace tcemu
