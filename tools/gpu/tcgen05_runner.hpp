// Golden cases of tcgen05.mma on the GPU (host side; the kernel is tcgen05_device.cu): which
// cases run, their operands packed into shared-memory images, the instruction descriptor and
// tensor-memory scale-factor words (tcgen05_layout.hpp), and D read back into a golden array.
// case_runner.cpp hands tcgen05 cases here; tcemu-gpu's `random`, `probe` and `list` use the
// catalog entries listed by tcgen05_entries().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "case_runner.hpp"
#include "tcemu_golden/generate.hpp"

namespace tcemu_gpu {

bool is_tcgen05(const std::string& ptx);
// Index into layout::kTcgen05Spellings, or -1 (no kernel: an unknown spelling).
int tcgen05_variant(const std::string& ptx);

// The sm_100a catalog entries of tcgen05.mma, cta_group::1 and ::2 (tcgen05_why_not says why
// one cannot run).
std::vector<const tcemu::InstrEntry*> tcgen05_entries();
// Why an entry / a case cannot run ("" when it can). `dev.present == false`: no device checks.
std::string tcgen05_entry_why_not(const tcemu::InstrEntry& e);
std::string tcgen05_why_not(const tcemu::golden::Case& c, const DeviceInfo& dev);

// The instruction descriptor of the entry at the launch shape (M = 128, N = 16) with the
// case's negation (Tables 42-44).
uint32_t tcgen05_case_idesc(const tcemu::InstrEntry& e, bool negate_a, bool negate_b);

std::optional<tcemu::golden::Array> run_tcgen05_case(const tcemu::golden::Case& c, std::string& err, const Backend& be);

// The generator request of `tcemu-gpu random` for the entry: side x side instruction tiles of the
// catalog's default tile (64 x 8; 128 x 16 for cta_group::2), one K step, operands from `dist`.
tcemu::golden::MmaGenRequest tcgen05_random_request(const tcemu::InstrEntry& e, int side, tcemu::golden::Dist dist,
                                                    uint64_t seed);

// The probes' dot products (probe.hpp) through the entry: query i in row i of A and column i
// of B, 8 queries per device tile.
DotRunner tcgen05_dot_runner(const tcemu::InstrEntry& e, const Backend& be = {});

}  // namespace tcemu_gpu
