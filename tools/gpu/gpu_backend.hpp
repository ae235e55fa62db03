// The interface between tcemu-gpu's host code (plain C++: golden files, operand layouts,
// probes) and its device code (mma_device.cu: one kernel per instruction, CUDA runtime calls).
// Only registers and bytes cross it; no CUDA type appears here, so the host code compiles and
// is unit-tested without a CUDA toolkit (gpu_backend_stub.cpp stands in for the device code).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tcemu_gpu {

// One instruction tcemu-gpu can run (tools/gpu/gen/mma_instrs.inc, generated from the catalog).
struct InstrInfo {
  int id;
  const char* ptx;
  bool wgmma;
  int arch_mask;  // 1 sm_90a, 2 sm_100a, 4 sm_120a: where the kernel holds the instruction
  int m, n, k;
  const char* atype;
  const char* btype;
  const char* dtype;
  char acc;             // 'F' f32, 'H' f16, 'I' s32 accumulator
  int ab_bits;          // bits of one A/B element in registers / shared memory (containers)
  int a_code, b_code;   // the elements' own widths (FP6/FP4 codes in 8-bit containers)
  int c_bits;
  int regs_a, regs_b, regs_c;  // 32-bit registers per thread (wgmma: only C/D)
  int scale_vec;        // block-scaled mma.sync: scales per row/column; 0 otherwise
  const char* stype;
  bool wmma;            // wmma.mma (opaque fragments through wmma.load / wmma.store)
};
const std::vector<InstrInfo>& instructions();
const InstrInfo* find_instr(const std::string& ptx);  // exact spelling; nullptr when absent

// The architecture-mask bit of compute capability major.minor: 1 for 9.0 (sm_90a), 2 for 10.x
// (sm_100a), 4 for 12.x (sm_120a), 0 for every other GPU (the programs here are built for
// those three targets only).
constexpr int arch_bit_of(int cc_major, int cc_minor) {
  return cc_major == 9 && cc_minor == 0 ? 1 : cc_major == 10 ? 2 : cc_major == 12 ? 4 : 0;
}
// The targets of an architecture mask, comma-separated: "sm_90a,sm_100a,sm_120a" for 7.
inline std::string arch_mask_names(int mask) {
  std::string s;
  for (const auto& [bit, name] : {std::pair{1, "sm_90a"}, std::pair{2, "sm_100a"}, std::pair{4, "sm_120a"}})
    if (mask & bit) {
      if (!s.empty()) s += ',';
      s += name;
    }
  return s;
}

// The GPU present, if any.
struct DeviceInfo {
  bool present = false;
  std::string why_not;  // when absent: the runtime's reason (no driver, no device, not built)
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::string driver, runtime;  // "13.0"
  int arch_bit() const;         // 1 for cc 9.0, 2 for 10.x, 4 for 12.x, 0 otherwise
};
DeviceInfo query_device();

// mma.sync: `tiles` independent instances; per tile 32 lanes x 4 registers of A and of B
// ([(tile*32 + lane)*4 + r]), 32 lanes x 8 registers of C and D ([(tile*32 + lane)*8 + r]: the
// f32 accumulator of m8n8k4 has 8), and 32 scale-a / scale-b registers.
// wgmma: per tile a shared-memory image of A (64 x K, 2048 bytes) and of B (N x K, N*32 bytes),
// both K-major without swizzle (LBO 128, SBO 256), and 128 threads x regs_c registers of C;
// `imm_neg` bit 0 runs the instruction with imm-scale-a = -1, bit 1 with imm-scale-b = -1.
// Returns "" on success, else what failed.
std::string run_mma_sync(const InstrInfo& in, int tiles, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                         const std::vector<uint32_t>& c, const std::vector<uint32_t>& sa,
                         const std::vector<uint32_t>& sb, std::vector<uint32_t>& d);
std::string run_wgmma(const InstrInfo& in, int tiles, const std::vector<uint8_t>& a_img,
                      const std::vector<uint8_t>& b_img, const std::vector<uint32_t>& c, bool scale_d, int imm_neg,
                      std::vector<uint32_t>& d);

// wmma: per tile, images of A (row-major M x K), B (column-major: element (k, n) at n*K + k),
// C and D (row-major M x N), elements in their containers (tf32 in 32 bits), little-endian,
// each tile's image `*_stride` bytes after the previous one (256-byte aligned).
struct WmmaImages {
  uint32_t a_stride, b_stride, c_stride;
};
WmmaImages wmma_images(const InstrInfo& in);
std::string run_wmma(const InstrInfo& in, int tiles, const std::vector<uint8_t>& a_img, const std::vector<uint8_t>& b_img,
                     const std::vector<uint8_t>& c_img, std::vector<uint8_t>& d_img);

// tcgen05.mma, cta_group::1 (sm_100a; tcgen05_device.cu, layouts in tcgen05_layout.hpp): `ptx`
// is one of layout::kTcgen05Spellings. Per device tile (32 rows x 8 columns of D): an A image
// (kTcgen05AImage bytes), a B image (kTcgen05BImage), 32 x 8 words of C (row-major; an f16
// accumulator in the low half), 32 scale_A words (row r, scale j in byte j) and 8 scale_B
// words (block-scaled kinds; ignored otherwise). idesc: the instruction descriptor; adesc,
// bdesc: the shared-memory descriptors without their start address (the kernel adds it).
// D comes back as C. `ptx` may also be a cta_group::2 spelling (every kind): a device tile is
// then 64 rows, 32 in each CTA of the pair (two A images per tile, 64 x 8 words of C and D, 64
// scale_A words, 32 per CTA; the 8 scale_B words go to both CTAs). Returns "" on success, else
// what failed.
struct Tcgen05Launch {
  uint32_t idesc = 0;
  uint64_t adesc = 0, bdesc = 0;
  bool enable_input_d = true;
  int scale_input_d = -1;  // kinds f16, tf32: D = A*B + D*2^-s (s in 0..15); -1: the form without it
};
std::string run_tcgen05(const std::string& ptx, int tiles, const Tcgen05Launch& l, const std::vector<uint8_t>& a_img,
                        const std::vector<uint8_t>& b_img, const std::vector<uint32_t>& c,
                        const std::vector<uint32_t>& sa, const std::vector<uint32_t>& sb, std::vector<uint32_t>& d);

// PTX cvt (cvt_variants.cuh; device code in cvt_device.cu): result i from the source
// registers src[i * kCvtMaxSrcs + k] (k in PTX operand order a, b, e, f; unused ones 0) and the
// random-bit operand rbits[i] (cvt.rs only; ignored otherwise). d[i]: the destination register.
constexpr int kCvtMaxSrcs = 4;
struct CvtInfo {
  int id;
  const char* ptx;
  int srcs;       // source registers (1, 2 or 4)
  int src_bits;   // width of one: 8, 16, 32 or 64
  int dst_bits;
  bool rbits;     // cvt.rs: a .b32 random-bit operand follows the sources
  int arch_mask;  // 1 sm_90a, 2 sm_100a, 4 sm_120a: where ptxas accepts it (the kernel holds it)
};
const std::vector<CvtInfo>& cvt_variants();
const CvtInfo* find_cvt(const std::string& ptx);  // exact spelling; nullptr when absent
std::string run_cvt(const CvtInfo& in, const std::vector<uint64_t>& src, const std::vector<uint32_t>& rbits,
                    std::vector<uint64_t>& d);

}  // namespace tcemu_gpu
