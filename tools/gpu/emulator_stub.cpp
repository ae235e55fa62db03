// Used by device_check.sh only when emulator/src does not build on the device machine: it
// keeps cvt_check linkable so that the hardware side (cvt_directed.txt) is still recorded.
// Every variant then reports "no-model" with the message below.
#include "tcemu/ptx_cvt.hpp"

namespace tcemu {

Result<PtxCvt> parse_ptx_cvt(std::string_view) {
  return Result<PtxCvt>::failure("emulator/src did not build on this machine (tools/gpu/emulator_stub.cpp linked instead)");
}
uint64_t ptx_cvt_eval(const PtxCvt&, std::span<const uint64_t>, uint32_t, RsBitMap) { return 0; }
int ptx_cvt_dst_bits(const PtxCvt&) { return 0; }
size_t container_bytes(Fmt) { return 8; }
Converter::Converter(Fmt from, Fmt to, const ConvertOptions& opt) : from_(from), to_(to), opt_(opt) {}
void Converter::run(const void*, void*, size_t, const uint32_t*) const {}

}  // namespace tcemu
