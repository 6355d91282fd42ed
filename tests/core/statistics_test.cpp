#include "core/statistics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fsgen {
namespace {

TEST(Statistics, PearsonOfLinearAndConstantSeries) {
  EXPECT_NEAR(pearson_r({1, 2, 3, 4}, {2, 4, 6, 8}), 1.0, 1e-12);
  EXPECT_NEAR(pearson_r({1, 2, 3, 4}, {8, 6, 4, 2}), -1.0, 1e-12);
  EXPECT_EQ(pearson_r({1, 2, 3}, {5, 5, 5}), 0.0);  // a constant side has no correlation
  EXPECT_EQ(pearson_r({1}, {2}), 0.0);
  // The first min(n) pairs.
  EXPECT_NEAR(pearson_r({1, 2, 3, 100}, {1, 2, 3}), 1.0, 1e-12);
  // A known value: x = 1..5, y = 2, 4, 5, 4, 5 has R = 0.774597 (3 / sqrt(15)).
  EXPECT_NEAR(pearson_r({1, 2, 3, 4, 5}, {2, 4, 5, 4, 5}), 3.0 / std::sqrt(15.0), 1e-12);
}

TEST(Statistics, PercentageAndRmsErrors) {
  EXPECT_NEAR(mape_percent({110, 90}, {100, 100}), 10.0, 1e-12);
  EXPECT_NEAR(mape_percent({1, 3}, {2, 2}), 50.0, 1e-12);
  EXPECT_NEAR(max_ape_percent({110, 70}, {100, 100}), 30.0, 1e-12);
  EXPECT_EQ(mape_percent({}, {}), 0.0);
  EXPECT_NEAR(rms_difference({1, 1}, {2, 0}), 1.0, 1e-12);
  EXPECT_NEAR(nrmse({1, 1}, {2, 0}), 1.0 / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(nrmse({1, 1}, {0, 0}), 0.0);
}

TEST(Statistics, LeastSquaresRecoversALinearLaw) {
  // y = 3 + 2 x1 - 0.5 x2, exactly.
  std::vector<std::pair<std::vector<double>, double>> pts;
  for (double a : {0.0, 1.0, 2.0, 5.0})
    for (double b : {1.0, 4.0, 9.0}) pts.push_back({{a, b}, 3 + 2 * a - 0.5 * b});
  const std::vector<double> c = least_squares_with_intercept(pts);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_NEAR(c[0], 3.0, 1e-6);
  EXPECT_NEAR(c[1], 2.0, 1e-6);
  EXPECT_NEAR(c[2], -0.5, 1e-6);
  // Noise: the fit minimises the squared residuals (the mean for an intercept alone).
  const std::vector<double> mean = least_squares_with_intercept({{{}, 1.0}, {{}, 2.0}, {{}, 6.0}});
  ASSERT_EQ(mean.size(), 1u);
  EXPECT_NEAR(mean[0], 3.0, 1e-6);
  // Fewer points than terms still give an answer, and no points give the intercept 0.
  EXPECT_EQ(least_squares_with_intercept({{{1.0, 2.0}, 5.0}}).size(), 3u);
  EXPECT_EQ(least_squares_with_intercept({}), std::vector<double>{0.0});
}

}  // namespace
}  // namespace fsgen
