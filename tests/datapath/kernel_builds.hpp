// Tests: run a check once per build of the fast MMA kernels this CPU has (baseline, AVX2,
// AVX-512; emulator/src/converter_isa.hpp's test hook limits the kernels to one), then leave
// the kernels unlimited again. A build the CPU lacks is noted on stdout, not checked.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>

#include "../../emulator/src/converter_isa.hpp"

namespace tcemu::test {

template <typename Check>
void for_each_kernel_build(const Check& check) {
  const detail::ConvertIsa best = detail::convert_isa();
  for (detail::ConvertIsa isa : {detail::ConvertIsa::baseline, detail::ConvertIsa::avx2, detail::ConvertIsa::avx512}) {
    if (isa > best) {
      std::cout << "note: this CPU lacks kernel build " << static_cast<int>(isa) << ": not checked\n";
      continue;
    }
    SCOPED_TRACE("kernel build " + std::to_string(static_cast<int>(isa)));
    detail::limit_convert_isa(isa);
    EXPECT_EQ(detail::convert_isa(), isa);
    check(static_cast<uint64_t>(isa));
  }
  detail::limit_convert_isa(detail::ConvertIsa::avx512);
}

}  // namespace tcemu::test
