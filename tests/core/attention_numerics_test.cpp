#include "core/attention_numerics.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/numerics_report.h"
#include "test_util.h"

namespace fsgen {
namespace {

const char* kStories = "../shared/models/stories260K.bin";

TEST(AttentionNumerics, Exp2Tables) {
  EXPECT_EQ(num::exp2_q7(0), 127);         // 1.0 saturates to 127/128
  EXPECT_EQ(num::exp2_q7(-256), 64);       // 2^-1
  EXPECT_EQ(num::exp2_q7(-128), 91);       // 2^-0.5 * 128 = 90.5 -> 91
  EXPECT_EQ(num::exp2_q7(-8 * 256), 0);    // below 2^-8
  EXPECT_EQ(num::exp2_q15(0), 32768u);
  EXPECT_EQ(num::exp2_q15(-512), 8192u);   // 2^-2
}

TEST(AttentionNumerics, RescaleByOneIsTheIdentityAndDivisionRoundsHalfUp) {
  for (int32_t x : {-100000, -3, 0, 5, 123456}) EXPECT_EQ(num::rescale_q15(x, 32768), x);
  EXPECT_EQ(num::div_round(5, 2), 3);
  EXPECT_EQ(num::div_round(-5, 2), -2);
  EXPECT_EQ(num::div_round(-7, 2), -3);
  EXPECT_EQ(num::div_round(10, 4), 3);
}

TEST(AttentionNumerics, ScoreScalingUsesTheWidestMultiplier) {
  uint16_t mult;
  uint8_t shift;
  num::choose_score_scaling(0.01, mult, shift);
  EXPECT_GT(mult, 32767);
  EXPECT_NEAR(mult / std::ldexp(1.0, shift), 0.01 * 1.4426950408889634 * 256, 1e-3);
}

TEST(AttentionNumerics, UniformScoresAverageTheValues) {
  // All-zero queries: every visible key gets the same weight, so row i averages v[0..i].
  num::AttentionParams p;
  p.lq = p.lkv = 16;
  p.d = 1;
  p.tile_kv = 4;
  std::vector<int8_t> q(16, 0), k(16, 1), v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<int8_t>(8 * i);
  const auto out = num::attention_head_reference(q, k, v, {}, p);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], (8 * i) / 2 + ((8 * i) % 2 ? 1 : 0)) << i;  // mean of 0, 8, ..., 8i
}

TEST(AttentionNumerics, ErrorAgainstFp32StaysSmall) {
  std::string skipped;
  const auto rows = measure_attention_error(kStories, skipped);
  ASSERT_GE(rows.size(), 6u);
  // Stated thresholds: prefill NRMSE under 5 %, decode (output step-limited) under 15 %.
  for (const auto& r : rows) {
    const double limit = r.inputs.find("decode") != std::string::npos ? 0.15 : 0.05;
    EXPECT_LT(r.error.nrmse, limit) << r.inputs << " vs " << r.against;
    EXPECT_GT(r.error.cosine, 0.99) << r.inputs;
  }
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

}  // namespace
}  // namespace fsgen
