// Synthetic operands: the distribution and the zero share asked for.
#include "compiler/synthetic.h"

#include <cmath>

#include "test_util.h"

namespace fsgen {
namespace {

struct Moments {
  double zeros = 0, mean = 0, stddev = 0;
};

Moments moments_of(const std::vector<int8_t>& v) {
  Moments m;
  double s = 0, ss = 0, nz = 0;
  for (int8_t x : v) {
    if (x == 0) m.zeros += 1;
    s += x;
    ss += double(x) * x;
    nz += 1;
  }
  m.zeros /= double(v.size());
  m.mean = s / nz;
  m.stddev = std::sqrt(ss / nz - m.mean * m.mean);
  return m;
}

TEST(Synthetic, NormalValuesHaveTheirSigmaAndZeroShare) {
  SyntheticValues v;
  v.distribution = SyntheticValues::Distribution::kNormal;
  v.sigma = 10.0;
  v.zero_fraction = 0.25;
  const Moments m = moments_of(random_int8(200000, 3, v));
  // Zeros: the drawn share plus normal draws that round to 0 (P(|x| < 0.5) = 0.04 at sigma 10).
  EXPECT_NEAR(m.zeros, 0.25 + 0.75 * 0.0399, 0.005);
  EXPECT_NEAR(m.mean, 0.0, 0.1);
  EXPECT_NEAR(m.stddev, 10.0 * std::sqrt(0.75), 0.1);  // a quarter of the values are zero
}

TEST(Synthetic, UniformValuesSpanInt8) {
  SyntheticValues v;
  const Moments m = moments_of(random_int8(200000, 3, v));
  EXPECT_NEAR(m.zeros, 1.0 / 256, 0.001);
  EXPECT_NEAR(m.stddev, 256 / std::sqrt(12.0), 0.3);
  EXPECT_EQ(random_int8(100, 9, v), random_int8(100, 9, v));  // the seed decides
  EXPECT_NE(test::error_of([] { distribution_named("gauss", "--values"); }).find("expected uniform or normal"),
            std::string::npos);
}

}  // namespace
}  // namespace fsgen
