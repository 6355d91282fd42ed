#include "power/timing_model.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "test_util.h"

namespace fsgen {
namespace {

const char* kHeader =
    "# format: fsgen-timing 1\n# liberty: fsgen45 (built in)\n# period_ns: 1\n"
    "kind,h,period_ns,arrival_ns,setup_ns,cells,area_um2,startpoint,endpoint\n";

std::string write_dataset(const std::string& name, const std::string& rows) {
  const std::string path = test::scratch_dir("timing_model") + "/" + name;
  std::ofstream(path) << kHeader << rows;
  return path;
}

// An output-stationary array whose delay is 1.0 ns + 0.1 ns per doubling of its PEs, and
// 0.3 more when systolic: the fit finds the terms, and predicts a size it never saw.
TEST(TimingModel, FitsTheLogOfTheSizeAndEachFlag) {
  std::string rows;
  for (int r : {2, 4, 8})
    for (int c : {2, 4})
      for (int sys : {0, 1}) {
        const double delay = 1.0 + 0.1 * std::log2(r * c) + 0.3 * sys;
        rows += "pe_array_os," + std::to_string(r) + ";" + std::to_string(c) + ";" + std::to_string(sys) + ",1," +
                std::to_string(delay - 0.03) + ",0.03,100,1000,x[0],acc[0]\n";
      }
  const TimingModel m = fit_timing_model(read_timing_dataset(write_dataset("os.csv", rows)));
  const KindTiming* k = m.find("pe_array_os");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->terms, (std::vector<std::string>{"log2 (R x C)", "SYSTOLIC"}));
  const PrimitiveDef& def = primitive_def("pe_array_os");
  EXPECT_NEAR(k->delay_ns(def, {32, 32, 0}), 1.0 + 1.0, 1e-3);
  EXPECT_NEAR(k->delay_ns(def, {4, 2, 1}), 1.0 + 0.3 + 0.3, 1e-3);
  EXPECT_NEAR(k->beyond(def, {32, 32, 0}), 8.0, 1e-9);  // C: 32 against 4
  EXPECT_LE(k->beyond(def, {4, 2, 0}), 1.0);
  EXPECT_LT(k->leave_one_out_max_error_percent, 0.1);
  EXPECT_EQ(m.find("dma"), nullptr);

  // Saved and loaded with the power model's JSON, the same predictions.
  const TimingModel back = timing_model_from_json(nlohmann::json::parse(timing_model_json(m).dump()), "model.json");
  EXPECT_NEAR(back.find("pe_array_os")->delay_ns(def, {32, 32, 0}), k->delay_ns(def, {32, 32, 0}), 1e-12);
}

TEST(TimingModel, MalformedDatasetsNameTheirPlace) {
  auto error_of = [](const std::string& path) {
    try {
      read_timing_dataset(path);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(write_dataset("kind.csv", "pe_array_xx,2;2;0,1,1.6,0.03,100,1000,a,b\n")).find("pe_array_xx"),
            std::string::npos);
  const std::string torn = error_of(write_dataset("torn.csv", "pe_array_os,2;2;0,1,1.6\n"));
  EXPECT_NE(torn.find("torn.csv:5"), std::string::npos) << torn;
  const std::string negative = error_of(write_dataset("negative.csv", "dma,1,1,-1.6,0.03,100,1000,a,b\n"));
  EXPECT_NE(negative.find("positive"), std::string::npos) << negative;
  const std::string path = test::scratch_dir("timing_model") + "/headerless.csv";
  std::ofstream(path) << "kind,h,period_ns,arrival_ns,setup_ns,cells,area_um2,startpoint,endpoint\n";
  EXPECT_NE(error_of(path).find("provenance"), std::string::npos);
  EXPECT_THROW(fit_timing_model(read_timing_dataset(write_dataset("empty.csv", ""))), UserError);
}

// The real flow on a small primitive: Yosys maps a 2x2 dot array for delay, OpenSTA times
// it (its netlist assigns output bits from others: OpenSTA reads one bit per assign), a row
// lands; a second run finds it there and adds nothing.
TEST(TimingModel, CharacterisesARealPrimitiveAndResumes) {
  const std::string dir = test::scratch_dir("timing_characterise");
  CharacterizeOptions o;
  o.kinds = {"pe_array_dot"};
  o.sizes = {"2x2x1x2x1"};
  o.jobs = 1;
  o.work_dir = dir + "/work";
  const std::string path = dir + "/timing.csv";
  std::filesystem::remove(path);
  EXPECT_EQ(characterize_timing(o, 1.0, path), 1u);
  const TimingDataset d = read_timing_dataset(path);
  ASSERT_EQ(d.points.size(), 1u);
  EXPECT_EQ(d.points[0].kind, "pe_array_dot");
  EXPECT_GT(d.points[0].delay_ns(), 0.1);
  EXPECT_LT(d.points[0].delay_ns(), 20.0);
  EXPECT_GT(d.points[0].cells, 100u);
  EXPECT_EQ(characterize_timing(o, 1.0, path), 0u);
  EXPECT_THROW(characterize_timing(o, 2.0, path), UserError);  // another period: a new dataset
}

}  // namespace
}  // namespace fsgen
