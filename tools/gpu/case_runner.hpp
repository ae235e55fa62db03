// Runs golden-format cases (golden/include/tcemu_golden/golden.hpp) on the present GPU: decides
// whether a case can run there, places its operands in the instruction's registers / shared
// memory (fragment_layout.hpp), runs one instruction per tile and K step through
// gpu_backend.hpp, and reads the hardware's D back into a golden array.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpu_backend.hpp"
#include "probe.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu_gpu {

// Why the case cannot run on `dev` (empty when it can). `dev.present == false` is not a reason
// here: it is checked once by the caller.
std::string why_not_runnable(const tcemu::golden::Case& c, const DeviceInfo& dev);

// Executes the case. Returns the hardware's result in the layout of c.expected, or sets `err`.
// `backend` replaces the device calls (tests run the packing with a host stand-in).
struct Backend {
  std::function<std::string(const InstrInfo&, int, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                            const std::vector<uint32_t>&, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                            std::vector<uint32_t>&)>
      mma_sync = run_mma_sync;
  std::function<std::string(const InstrInfo&, int, const std::vector<uint8_t>&, const std::vector<uint8_t>&,
                            const std::vector<uint32_t>&, bool, int, std::vector<uint32_t>&)>
      wgmma = run_wgmma;
  std::function<std::string(const InstrInfo&, int, const std::vector<uint8_t>&, const std::vector<uint8_t>&,
                            const std::vector<uint8_t>&, std::vector<uint8_t>&)>
      wmma = run_wmma;
  std::function<std::string(const CvtInfo&, const std::vector<uint64_t>&, const std::vector<uint32_t>&,
                            std::vector<uint64_t>&)>
      cvt = run_cvt;
  std::function<std::string(const std::string&, int, const Tcgen05Launch&, const std::vector<uint8_t>&,
                            const std::vector<uint8_t>&, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                            const std::vector<uint32_t>&, std::vector<uint32_t>&)>
      tcgen05 = run_tcgen05;  // tcgen05_runner.cpp
};
std::optional<tcemu::golden::Array> run_case(const tcemu::golden::Case& c, std::string& err, const Backend& be = {});

// The probes' dot products through the instruction on the GPU (or `be`): queries sit on the
// diagonal of one instruction tile (row i of A and column i of B hold query i, so D(i, i) is
// its dot product plus C(i, i)), min(M, N) queries per launch.
DotRunner gpu_dot_runner(const tcemu::InstrEntry& e, const InstrInfo& in, const Backend& be = {});

// The batching behind gpu_dot_runner and tcgen05_dot_runner: queries `per` at a time as M x N x K
// cases of `e` (query i in row i of A, column i of B and C(i, i); zeros elsewhere, unit block
// scales), each run by `run`; returns D(i, i) of every query in order.
using CaseRun = std::function<std::optional<tcemu::golden::Array>(const tcemu::golden::Case&, std::string&)>;
std::vector<uint64_t> run_diagonal_batches(const tcemu::InstrEntry& e, int M, int N, int K, int per,
                                           const std::vector<DotQuery>& qs, const CaseRun& run);

// The hardware provenance written with measured cases.
nlohmann::json hardware_provenance(const DeviceInfo& dev, const std::string& tool);

}  // namespace tcemu_gpu
