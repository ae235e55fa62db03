// Internal: which instruction set the f32 conversion kernels of converter.cpp and the fast
// MMA kernels (mma_fast_kernels.hpp) run with. Each caller runs its baseline build where it
// did not build the others.
#pragma once

namespace tcemu::detail {

enum class ConvertIsa { baseline = 0, avx2 = 1, avx512 = 2 };

// The best the CPU has, at most the limit below.
ConvertIsa convert_isa();
// For tests: run at most these kernels (every build of the kernels is then checked on one
// machine). Default: avx512 (no limit).
void limit_convert_isa(ConvertIsa most);

}  // namespace tcemu::detail
