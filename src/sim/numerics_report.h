// Error of the fixed-point attention pipeline (src/core/attention_numerics.h)
// against an FP32 reference, on random inputs and on real attention inputs taken
// from a llama2.c checkpoint (stories260K) when one is at hand.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace fsgen {

struct ErrorStats {
  double nrmse = 0;    // rms(error) / rms(reference)
  double max_abs = 0;  // largest absolute error, in output units
  double cosine = 0;   // cosine similarity of the flattened outputs
  size_t values = 0;
};

struct NumericsRow {
  std::string inputs;   // which attention inputs
  std::string against;  // which FP32 reference
  ErrorStats error;
};

// model_path may name a missing file: the real-input rows are then left out and
// `skipped` says why.
std::vector<NumericsRow> measure_attention_error(const std::string& model_path, std::string& skipped);
void print_numerics(const std::vector<NumericsRow>& rows, const std::string& skipped, std::ostream& out);

}  // namespace fsgen
