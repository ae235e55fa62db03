// Whole-matrix MMA on several threads: the same D as mma() of mma.hpp, bit for bit, for every
// thread count. The problem is checked and its operands decoded once (the decoding itself
// split over the threads), then D is cut into tiles of rows and columns, about four a thread,
// which the threads compute from the shared decoded operands. Every D element is one chained
// dot product whatever the tiling (mma.hpp), so the tiles compute exactly what the single call
// does.
#pragma once

#include "tcemu/mma.hpp"
#include <functional>

#include "tcemu/parallel.hpp"

namespace tcemu {

// As mma(e, prob, opt) on thread_count(exec) threads. A problem that is not well formed (sizes
// that disagree, ...) gets the single-threaded call's error.
MmaResult mma(const InstrEntry& e, const MmaProblem& prob, const MmaOptions& opt, const Exec& exec);

// Progress of a long mma: called after each finished tile (from the worker thread that finished
// it, one call at a time),
// with the multiply-adds done so far and in all (for a progress bar). Must not throw.
using MmaProgress = std::function<void(double done_macs, double total_macs)>;
MmaResult mma(const InstrEntry& e, const MmaProblem& prob, const MmaOptions& opt, const Exec& exec,
              const MmaProgress& progress);

}  // namespace tcemu
