#include "core/statistics.h"

#include <Eigen/Dense>
#include <algorithm>

#include "core/error.h"

namespace fsgen {

namespace {
using Vec = Eigen::Map<const Eigen::ArrayXd>;

Vec head(const std::vector<double>& v, size_t n) { return Vec(v.data(), Eigen::Index(n)); }

// |got - want| / max(|want|, 1e-9), pair by pair.
Eigen::ArrayXd relative_errors(const std::vector<double>& got, const std::vector<double>& want) {
  FSGEN_ASSERT(got.size() == want.size(), "paired series of one length");
  const size_t n = want.size();
  return (head(got, n) - head(want, n)).abs() / head(want, n).abs().max(1e-9);
}
}  // namespace

double pearson_r(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  const Eigen::ArrayXd da = head(a, n) - head(a, n).mean();
  const Eigen::ArrayXd db = head(b, n) - head(b, n).mean();
  const double saa = da.square().sum(), sbb = db.square().sum();
  return saa > 0 && sbb > 0 ? (da * db).sum() / std::sqrt(saa * sbb) : 0;
}

double mape_percent(const std::vector<double>& got, const std::vector<double>& want) {
  return want.empty() ? 0 : 100.0 * relative_errors(got, want).mean();
}

double max_ape_percent(const std::vector<double>& got, const std::vector<double>& want) {
  return want.empty() ? 0 : 100.0 * relative_errors(got, want).maxCoeff();
}

double rms_difference(const std::vector<double>& got, const std::vector<double>& want) {
  FSGEN_ASSERT(got.size() == want.size(), "paired series of one length");
  const size_t n = want.size();
  return n ? std::sqrt((head(got, n) - head(want, n)).square().mean()) : 0;
}

double nrmse(const std::vector<double>& got, const std::vector<double>& want) {
  FSGEN_ASSERT(got.size() == want.size(), "paired series of one length");
  const size_t n = want.size();
  const double ref = head(want, n).square().sum();
  return ref > 0 ? std::sqrt((head(got, n) - head(want, n)).square().sum() / ref) : 0;
}

std::vector<double> least_squares_with_intercept(const std::vector<std::pair<std::vector<double>, double>>& points,
                                                 const std::vector<double>& weights) {
  FSGEN_ASSERT(weights.empty() || weights.size() == points.size(), "one weight per point");
  const Eigen::Index k = points.empty() ? 1 : Eigen::Index(points.front().first.size()) + 1;
  Eigen::MatrixXd x(Eigen::Index(points.size()), k);
  Eigen::VectorXd y(Eigen::Index(points.size()));
  for (size_t r = 0; r < points.size(); ++r) {
    FSGEN_ASSERT(Eigen::Index(points[r].first.size()) + 1 == k, "every point with the same terms");
    const double w = weights.empty() ? 1.0 : weights[r];
    x(Eigen::Index(r), 0) = w;
    for (Eigen::Index c = 1; c < k; ++c) x(Eigen::Index(r), c) = w * points[r].first[size_t(c - 1)];
    y(Eigen::Index(r)) = w * points[r].second;
  }
  Eigen::MatrixXd normal = x.transpose() * x;
  // Each term's ridge in its own scale: a term of large values (a 16x16 controller's buffer
  // bytes) does not bias the others, the intercept among them.
  normal.diagonal() *= 1 + 1e-9;
  // Column-pivoting QR: a term that never varies (a zero column) gets the coefficient 0.
  const Eigen::VectorXd c = points.empty() ? Eigen::VectorXd::Zero(k)
                                           : Eigen::VectorXd(normal.colPivHouseholderQr().solve(x.transpose() * y));
  return std::vector<double>(c.data(), c.data() + c.size());
}

}  // namespace fsgen
