// Runs CUTLASS's host number types on codes read from stdin (raw little-endian uint64, one
// per element) and writes the result codes (uint64) to stdout. Compiled by
// python/tests/test_conventions_upstream.py against the headers of the pinned nvidia-cutlass
// package (requirements.txt); nothing of CUTLASS is copied here.
//   cutlass_host_probe PATH SRC DST    PATH: ctor (DST(src)), conv (NumericConverter),
//                                      array8 (NumericArrayConverter<DST, SRC, 8>)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cutlass/float8.h"
#include "cutlass/float_subbyte.h"
#include "cutlass/numeric_conversion.h"
#include "cutlass/numeric_types.h"

namespace {

template <class T>
uint64_t bits_of(const T& v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <class T>
T from_bits(uint64_t u) {
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}
// Sub-byte types sit in the low bits of their storage byte.
template <class T>
uint64_t code_of(const T& v) {
  const int bits = cutlass::sizeof_bits<T>::value;
  return bits_of(v) & ((bits >= 64) ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1));
}

template <class D, class S>
int run(const std::string& path, const std::vector<uint64_t>& in, std::vector<uint64_t>& out) {
  out.resize(in.size());
  if (path == "ctor") {
    for (size_t i = 0; i < in.size(); ++i) out[i] = code_of(D(from_bits<S>(in[i])));
  } else if (path == "conv") {
    cutlass::NumericConverter<D, S, cutlass::FloatRoundStyle::round_to_nearest> c;
    for (size_t i = 0; i < in.size(); ++i) out[i] = code_of(c(from_bits<S>(in[i])));
  } else if (path == "array8") {
    cutlass::NumericArrayConverter<D, S, 8, cutlass::FloatRoundStyle::round_to_nearest> c;
    for (size_t i = 0; i < in.size(); i += 8) {
      cutlass::Array<S, 8> a;
      for (size_t j = 0; j < 8; ++j) a[j] = from_bits<S>(i + j < in.size() ? in[i + j] : 0);
      cutlass::Array<D, 8> r = c(a);
      for (size_t j = 0; j < 8 && i + j < in.size(); ++j) out[i + j] = code_of(D(r[j]));
    }
  } else {
    return 2;
  }
  return 0;
}

template <class D>
int by_src(const std::string& path, const std::string& src, const std::vector<uint64_t>& in, std::vector<uint64_t>& out) {
  if (src == "f64") return run<D, double>(path, in, out);
  if (src == "f32") return run<D, float>(path, in, out);
  if (src == "f16") return run<D, cutlass::half_t>(path, in, out);
  if (src == "bf16") return run<D, cutlass::bfloat16_t>(path, in, out);
  return 2;
}

template <class S>
int to_float(const std::string& path, const std::vector<uint64_t>& in, std::vector<uint64_t>& out) {
  return run<float, S>(path, in, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string path = argv[1], src = argv[2], dst = argv[3];
  std::vector<uint64_t> in, out;
  uint64_t buf[4096];
  size_t n;
  while ((n = std::fread(buf, 8, 4096, stdin)) > 0) in.insert(in.end(), buf, buf + n);
  int rc = 2;
  if (dst == "e4m3") rc = by_src<cutlass::float_e4m3_t>(path, src, in, out);
  else if (dst == "e5m2") rc = by_src<cutlass::float_e5m2_t>(path, src, in, out);
  else if (dst == "e3m2") rc = by_src<cutlass::float_e3m2_t>(path, src, in, out);
  else if (dst == "e2m3") rc = by_src<cutlass::float_e2m3_t>(path, src, in, out);
  else if (dst == "e2m1") rc = by_src<cutlass::float_e2m1_t>(path, src, in, out);
  else if (dst == "ue8m0") rc = by_src<cutlass::float_ue8m0_t>(path, src, in, out);
  else if (dst == "ue4m3") rc = by_src<cutlass::float_ue4m3_t>(path, src, in, out);
  else if (dst == "f32") {
    if (src == "e4m3") rc = to_float<cutlass::float_e4m3_t>(path, in, out);
    else if (src == "e5m2") rc = to_float<cutlass::float_e5m2_t>(path, in, out);
    else if (src == "e3m2") rc = to_float<cutlass::float_e3m2_t>(path, in, out);
    else if (src == "e2m3") rc = to_float<cutlass::float_e2m3_t>(path, in, out);
    else if (src == "e2m1") rc = to_float<cutlass::float_e2m1_t>(path, in, out);
    else if (src == "ue8m0") rc = to_float<cutlass::float_ue8m0_t>(path, in, out);
    else if (src == "ue4m3") rc = to_float<cutlass::float_ue4m3_t>(path, in, out);
  }
  if (rc != 0) {
    std::fprintf(stderr, "cutlass_host_probe: no %s conversion %s -> %s\n", path.c_str(), src.c_str(), dst.c_str());
    return rc;
  }
  std::fwrite(out.data(), 8, out.size(), stdout);
  return 0;
}
