// The Result forms (try_<name>) of the golden library's calls that take a user's data: each
// runs the throwing form and returns its GoldenError / io::NpyError message unchanged.
#include "as_result.hpp"
#include "tcemu_golden/committed_set.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/npy.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::io {

Result<NpyArray> try_read_npy(const std::string& path) {
  return golden::detail::as_result([&] { return read_npy(path); });
}
std::string try_write_npy(const std::string& path, const NpyArray& a) {
  return golden::detail::as_error([&] { write_npy(path, a); });
}

}  // namespace tcemu::io

namespace tcemu::golden {

using detail::as_error;
using detail::as_result;

Result<GoldenFile> try_read_golden(const std::string& path) {
  return as_result([&] { return read_golden(path); });
}
Result<GoldenFile> try_parse_golden(const nlohmann::json& doc, const std::string& dir, const std::string& where) {
  return as_result([&] { return parse_golden(doc, dir, where); });
}
std::string try_write_golden(const std::string& path, GoldenFile& file, size_t npy_threshold) {
  return as_error([&] { write_golden(path, file, npy_threshold); });
}

Result<Array> try_read_actual(const std::string& path, const Case& expected) {
  return as_result([&] { return read_actual(path, expected); });
}
Result<ActualSource> ActualSource::try_open(std::string path) {
  return as_result([&] { return ActualSource(std::move(path)); });
}
Result<Array> ActualSource::try_read(const Case& expected) const {
  return as_result([&] { return read(expected); });
}
Result<CompareReport> try_compare(const Case& expected, const Array& actual, const CompareOptions& opt) {
  return as_result([&] { return compare(expected, actual, opt); });
}

Result<std::vector<uint64_t>> try_evaluate(const Case& c) {
  return as_result([&] { return evaluate(c); });
}
Result<Array> try_evaluate_as_expected(const Case& c) {
  return as_result([&] { return evaluate_as_expected(c); });
}
Result<std::map<std::string, Array>> try_evaluate_all(const Case& c) {
  return as_result([&] { return evaluate_all(c); });
}
Result<std::vector<std::string>> try_not_reproduced(const Case& c) {
  return as_result([&] { return not_reproduced(c); });
}

Result<Case> try_generate_mma(const MmaGenRequest& r) {
  return as_result([&] { return generate_mma(r); });
}
Result<std::vector<Case>> try_generate_mma_cases(std::span<const MmaGenRequest> requests, const Exec& exec) {
  return as_result([&] { return generate_mma_cases(requests, exec); });
}
Result<Case> try_generate_gemm(const GemmGenRequest& r) {
  return as_result([&] { return generate_gemm(r); });
}
Result<Case> try_generate_convert(const ConvertGenRequest& r) {
  return as_result([&] { return generate_convert(r); });
}
Result<Case> try_generate_cvt(const CvtGenRequest& r) {
  return as_result([&] { return generate_cvt(r); });
}

Result<QuantShapes> try_quant_shapes(const quant::Recipe& r, size_t rows, size_t cols, const std::string& where) {
  return as_result([&] { return quant_shapes(r, rows, cols, where); });
}
std::string try_check_recipe_upstream(const nlohmann::json& j, const quant::Recipe& r, const std::string& where) {
  return as_error([&] { check_recipe_upstream(j, r, where); });
}
Result<quant::Recipe> try_parse_recipe_json(const nlohmann::json& j, const std::string& where) {
  return as_result([&] { return parse_recipe_json(j, where); });
}
Result<Case> try_quantize_case(const std::string& name, const quant::Recipe& r, const Array& x,
                               const std::vector<uint32_t>& rbits, const quant::Quantized& q, Provenance provenance) {
  return as_result([&] { return quantize_case(name, r, x, rbits, q, std::move(provenance)); });
}
Result<Case> try_make_quantize_case(const std::string& name, const quant::Recipe& r, const Array& x,
                                    const std::vector<uint32_t>& rbits, Provenance provenance) {
  return as_result([&] { return make_quantize_case(name, r, x, rbits, std::move(provenance)); });
}
Result<std::map<std::string, Array>> try_evaluate_quantize(const Case& c) {
  return as_result([&] { return evaluate_quantize(c); });
}
Result<Case> try_generate_quantize(const QuantizeGenRequest& r) {
  return as_result([&] { return generate_quantize(r); });
}

Result<std::vector<CoveredEntry>> try_read_committed_index(const std::string& path) {
  return as_result([&] { return read_committed_index(path); });
}

}  // namespace tcemu::golden
