// The sparse network study (paper section 7.5) on a compute-bound kernel: the networks'
// differences show in whole-kernel cycles, not only in the array's stream.
#include "sim/sparsity_study.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_util.h"

namespace fsgen {
namespace {

// The study's row of `design` with `skips`, or null.
const SparsityStudyRow* row_named(const SparsityStudy& s, const std::string& design, const std::string& skips) {
  const auto it = std::find_if(s.rows.begin(), s.rows.end(),
                               [&](const SparsityStudyRow& r) { return r.design == design && r.skips == skips; });
  return it == s.rows.end() ? nullptr : &*it;
}

double speed_up(const SparsityStudy& s, const SparsityStudyRow& r) {
  return double(s.rows.front().cycles) / double(r.cycles);
}

TEST(SparsityStudy, TheNetworksSpeedUpsShowInWholeKernelCycles) {
  SparsityStudyOptions o;
  o.batch = 32;
  o.n = 32;
  o.work_dir = test::scratch_dir("sparsity_study");
  const SparsityStudy s = run_sparsity_study(o);
  const SparsityStudyRow& dense = s.rows.front();
  ASSERT_EQ(dense.design, "dense");
  // The array streams most of the dense kernel's cycles: it is not waiting on memory.
  EXPECT_GT(double(dense.stream_cycles) / double(dense.cycles), 0.55);
  // Unicast x lanes (1b) skip steps on random zeros; one multicast lane (2b) almost never.
  const SparsityStudyRow* unicast = row_named(s, "8G_1b2c", "x, w");
  const SparsityStudyRow* multicast = row_named(s, "1G_2b2b", "x, w");
  ASSERT_TRUE(unicast && multicast);
  EXPECT_GT(speed_up(s, *unicast), 1.08);
  EXPECT_LT(speed_up(s, *multicast), 1.02);
  // Structured 2:4 operands: every lane design streams two cycles per window of four.
  EXPECT_GT(double(dense.cycles_24) / double(unicast->cycles_24), 1.3);
}

// B must fit the controller's slots: the error names the sizes and the limit, and nothing runs.
TEST(SparsityStudy, AKernelWhoseBDoesNotFitIsRefused) {
  const test::CliRun r = test::fsgen_cli("sparsity-study --n 512 --k 128");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--n 512 x --k 128: expected at most 32768"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SystemC runs"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fsgen
