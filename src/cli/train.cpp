// fsgen train: the XGBoost power model of every primitive in a dataset.
#include <chrono>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/error.h"
#include "power/characterize.h"
#include "power/power_model.h"
#include "power/timing_model.h"
#include "power/training_report.h"

namespace fsgen::cli {

namespace {
struct TrainOptions {
  std::string dataset, model_out = "power_model.json", timing_dataset;
  int rounds = 200;
};

int run_train(const TrainOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  PowerModel pm = train_power_model(read_dataset(o.dataset), o.rounds);
  if (!o.timing_dataset.empty()) {
    pm.timing = fit_timing_model(read_timing_dataset(o.timing_dataset));
    const std::string power_liberty = pm.provenance.count("liberty") ? pm.provenance.at("liberty") : "";
    if (pm.timing.provenance.at("liberty") != power_liberty)
      fail(o.timing_dataset, "liberty '" + pm.timing.provenance.at("liberty") + "', expected the power dataset's '" +
                                 power_liberty + "'");
  }
  save_power_model(pm, o.model_out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_training_summary(pm, o.dataset, seconds, std::cout);
  std::cout << "wrote " << o.model_out << "\n";
  return 0;
}
}  // namespace

Command train_command(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand("train", "train the XGBoost power model of every primitive in a dataset");
  cmd->add_option("dataset", o->dataset, "characterisation dataset (CSV) from fsgen characterize")->required();
  cmd->add_option("-o,--out", o->model_out, "power model file (JSON)")->capture_default_str();
  cmd->add_option(
      "--timing", o->timing_dataset,
      "timing dataset (CSV) from fsgen characterize --timing on the same liberty: adds the max-clock model");
  cmd->add_option("--rounds", o->rounds, "boosting rounds")->check(CLI::PositiveNumber)->capture_default_str();
  return {cmd, [o] { return run_train(*o); }};
}

}  // namespace fsgen::cli
