// The golden-vector file format, version 1: JSON (nlohmann/json) holding one or more cases.
// A case names an operation (an MMA/GEMM instruction of the catalog, a conversion under a
// convention, a PTX cvt instruction, or a quantization recipe), its shapes and layouts, its operands, the expected
// result and where that result came from. Small arrays travel as hex strings inside the JSON;
// large ones in .npy files next to it. The full description is docs/golden.md; the JSON
// Schema is golden/schema/golden-v1.schema.json.
//
// Reading checks everything a kernel test relies on and throws GoldenError naming the field
// ("cases[2].operands.A.hex: ..."): the version, lengths, codes out of range, missing block
// scales, shapes that do not tile into the instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/format.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/ptx_cvt.hpp"
#include "tcemu/quant_recipe.hpp"
#include "tcemu/result.hpp"

namespace tcemu::golden {

inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kFormatName = "tcemu-golden";
inline constexpr std::string_view kTcemuVersion = "0.1.0";

struct GoldenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The element type of an array: a format of format.hpp (the int32 accumulator s32 included),
// or raw register bits "b8" / "b16" / "b32" (operands of PTX cvt instructions).
struct ElemType {
  std::string name;
  std::optional<Fmt> fmt;  // set for the formats of format.hpp; nullopt for raw bits
  int bits = 32;           // bits of one code
  int bytes = 4;           // container: 1, 2, 4 or 8 bytes, little-endian
  int hex_digits = 8;      // digits of one code in a hex string
  bool operator==(const ElemType& o) const { return name == o.name; }
};
std::optional<ElemType> parse_elem_type(std::string_view name);
ElemType elem_type(Fmt f);
ElemType bits_type(int bits);  // b8, b16, b32
// True when `code` is a code of the type (fits its width; ue4m3 bit 7 clear). tf32 codes are
// f32 containers: the low 13 bits are allowed (the instruction ignores them, PTX wgmma).
bool code_in_range(const ElemType& t, uint64_t code);
// NumPy dtype used when writing: <f4 for f32, <f2 for f16, |i1 for s8, <i4 for s32, else
// unsigned integers of the container size (bf16, fp8, fp6, fp4 codes are bit patterns).
std::string npy_descr(const ElemType& t);

// An array of codes. A matrix of rows x cols is stored row-major ([rows, ld], element (r, c)
// at r*ld + c) or column-major ([cols, ld], element (r, c) at c*ld + r); ld defaults to the
// contiguous dimension. A vector has cols = 1 and 1-D shape.
struct Array {
  ElemType type;
  size_t rows = 0, cols = 1;
  bool is_vector = false;  // shape [rows]
  bool col_major = false;
  size_t ld = 0;           // leading dimension (elements); 0 = contiguous
  std::vector<uint8_t> raw;  // storage order, type.bytes per element, little-endian
  std::string npy;           // file name (relative to the JSON) when it lives in a .npy

  size_t lead() const { return ld ? ld : (col_major ? rows : cols); }
  size_t storage_count() const { return is_vector ? rows : (col_major ? cols : rows) * lead(); }
  size_t index(size_t r, size_t c) const { return col_major ? c * lead() + r : r * lead() + c; }
  // Inline with fixed-size loads: compare walks 67M elements of an 8192 x 8192 output.
  uint64_t at_storage(size_t i) const {
    const uint8_t* p = raw.data() + i * static_cast<size_t>(type.bytes);
    switch (type.bytes) {
      case 1: return *p;
      case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
      case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
      default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    }
  }
  uint64_t at(size_t r, size_t c) const { return at_storage(index(r, c)); }
  void set(size_t r, size_t c, uint64_t code);
  // The logical matrix, row-major rows x cols.
  std::vector<uint64_t> logical() const;
};
// A row-major matrix (or vector) from logical codes.
Array make_array(const ElemType& t, size_t rows, size_t cols, const std::vector<uint64_t>& codes, bool col_major = false,
                 bool is_vector = false);

enum class OpKind { mma, convert, cvt, quantize, gemm };
std::string_view to_string(OpKind k);

struct MmaSpec {
  std::string arch, ptx;
  std::optional<Fmt> atype, btype, stype;  // as given (tcgen05 needs them; others may omit)
  std::optional<AccType> dtype;
  const InstrEntry* entry = nullptr;       // resolved from the catalog
  int M = 0, N = 0, K = 0;
  int tile_m = 0, tile_n = 0;              // the instruction tile the output is made of
  MmaOptions options;
};

struct ConvertSpec {
  Fmt from = Fmt::f32, to = Fmt::f16;
  std::string convention = "ptx";
  OptionRequest request;      // what the case asks for on top of the convention
  ConvertOptions options;     // resolved
};

struct CvtSpec {
  std::string ptx;
  RsBitMap rs_map = RsBitMap::ptx_doc;
  PtxCvt parsed;
};

// op "quantize": a recipe of quant_recipe.hpp (preset name plus every option, resolved)
// applied to a rows x cols tensor x (quant_case.hpp builds, evaluates and checks these).
struct QuantSpec {
  quant::Recipe recipe;
  size_t rows = 0, cols = 0;
};

// Where the expected result came from. source "tcemu": generated (tcemu_version, model,
// seed, generator settings); source "hardware": measured (gpu, driver, cuda, date).
// op "gemm": a library GEMM (tcemu/gemm.hpp) of the instruction in Case::mma (instruction,
// shape, tile; promotion and negation in mma.options): the K schedule and the epilogue.
// plan.epilogue's vectors stay empty here: a_scale, b_scale and bias are operands of the case
// (gemm_plan() in evaluate.hpp puts them in).
struct GemmSpec {
  GemmPlan plan;                      // chunks (empty: one chain), combine, epilogue scalars, mma options
  std::optional<std::string> preset;  // the named plan it came from (plan_presets())
  std::optional<int> split_k, grain;  // how the chunks were computed, when from a split count
};

// The plan in a few characters, for case names and reports: "cublaslt-bitequiv-s3-k128.128.64",
// "chain", "f32-tree-k96.128.96".
std::string plan_summary(const GemmSpec& g);

struct Provenance {
  std::string source = "tcemu";
  nlohmann::json fields = nlohmann::json::object();  // every field, source included
};

struct Case {
  std::string name;
  OpKind op = OpKind::mma;
  MmaSpec mma;
  ConvertSpec conv;
  CvtSpec cvt;
  QuantSpec quant;
  GemmSpec gemm;
  // mma: A (M x K), B (K x N), C (M x N), scale_A (M x K/block), scale_B (N x K/block).
  // convert: x (n), rbits (n, b32, Round::rs only). cvt: src (n x registers), rbits (n).
  // quantize: x (rows x cols, f32/f16/bf16), rbits (b32, stochastic rounding only).
  // gemm: A, B, scale_A, scale_B as mma; C (M x N f32, only when beta != 0); a_scale (f32 [1]
  // or [M]), b_scale (f32 [1] or [N]), bias (f32 [N]), each optional.
  std::map<std::string, Array> operands;
  Array expected;  // mma: D (M x N); gemm: D (M x N, the output type); convert: y (n); cvt: d (n); quantize: codes (rows x cols)
  std::string expected_name = "D";
  // Expected arrays besides `expected` (only quantize has any: "scales", and "global" for
  // NVFP4). Written and read next to `expected` under "expected" in the JSON.
  std::map<std::string, Array> extra_expected;
  Provenance provenance;
  std::string note;
};

struct GoldenFile {
  int version = kFormatVersion;
  std::string description;
  std::vector<Case> cases;
};

// Errors (docs/architecture.md, "Errors"): every call of this library that takes data or
// names a user gives (files, JSON, requests) has a Result form, `try_<name>`, whose error is
// the message the throwing form `<name>` throws (GoldenError or io::NpyError, byte for byte).
// The throwing forms stay for tests and for callers whose input the library made itself; the
// CLI and the Python module call the Result forms.

// Reads and checks a file; .npy references are resolved relative to its folder.
Result<GoldenFile> try_read_golden(const std::string& path);
GoldenFile read_golden(const std::string& path);  // throws GoldenError: try_read_golden's error
// Parses a document (npy references resolved in `dir`). `where` prefixes error messages.
Result<GoldenFile> try_parse_golden(const nlohmann::json& doc, const std::string& dir, const std::string& where);
GoldenFile parse_golden(const nlohmann::json& doc, const std::string& dir, const std::string& where);  // throws

// Writes a file. Arrays with more than `npy_threshold` elements go to .npy files next to it,
// named <stem>.<case>.<operand>.npy (0 = every array inline as hex). try_write_golden returns
// the message ("PATH: cannot write", ...), empty on success; write_golden throws it.
std::string try_write_golden(const std::string& path, GoldenFile& file, size_t npy_threshold = 4096);
void write_golden(const std::string& path, GoldenFile& file, size_t npy_threshold = 4096);
// The JSON document (arrays whose `npy` is set are referenced, not inlined).
nlohmann::json to_json(const GoldenFile& file);

// An f32 scalar in JSON as its bits, "0x" and 8 lower-case hex digits (NaN, Inf and -0 survive);
// parse_f32_hex takes either case and gives nullopt for anything else.
std::string f32_hex(uint32_t bits);
std::optional<uint32_t> parse_f32_hex(std::string_view s);

// Hex encoding of storage codes: `digits` characters per code, lower case.
std::string to_hex_string(const Array& a);

}  // namespace tcemu::golden
