// The user's own code under test: hand-written f32 -> FP8 E4M3 conversions (no tcemu inside),
// one correct and two with the bugs that such code typically has.
#pragma once

#include <cstdint>

namespace my {

// Round to nearest even, saturate to +-448, NaN -> 0x7f: what PTX cvt.rn.satfinite.e4m3x2.f32
// does to each element.
uint8_t f32_to_e4m3(uint32_t f32_bits);
// Bug 1: rounds ties away from zero (std::round instead of std::nearbyint).
uint8_t f32_to_e4m3_ties_away(uint32_t f32_bits);
// Bug 2: saturates from 480 on instead of from 464 (the midpoint of 448 and the next binade
// step), so (464, 480) rounds up into the NaN code 0x7f.
uint8_t f32_to_e4m3_late_saturation(uint32_t f32_bits);

}  // namespace my
