// fsgen power-validate: the power model and the baselines scored on validation records.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/write_file.h"
#include "power/characterize.h"
#include "power/validation.h"

namespace fsgen::cli {

namespace {
struct ValidateOptions {
  std::string records, dataset, png, markdown;
};

int run_validate(const ValidateOptions& o) {
  const ValidationSummary v = summarise_validation(read_validation_records(o.records), read_dataset(o.dataset));
  std::cout << "power validation of " << o.records << " (golden: gate-level replay of the RTL's stimulus; "
            << "baselines calibrated on " << o.dataset << ")\n\n";
  print_validation(v, std::cout);
  if (!o.markdown.empty())
    write_file_atomically(o.markdown, "validation report", [&](std::ostream& file) { print_validation(v, file); });
  if (!o.png.empty()) {
    plot_validation_png(v, o.png);
    std::cout << "wrote " << o.png << "\n";
  }
  return 0;
}
}  // namespace

Command power_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand("power-validate",
                                 "score the power model and the baselines on validation records against golden");
  cmd->add_option("records", o->records, "validation records (CSV) from fsgen power --golden --record")->required();
  cmd->add_option("--dataset", o->dataset, "the characterisation dataset the baselines are calibrated on")->required();
  cmd->add_option("--png", o->png, "draw predicted against golden per design as a PNG (gnuplot)");
  cmd->add_option("--markdown", o->markdown, "also write the tables to this Markdown file");
  return {cmd, [o] { return run_validate(*o); }};
}

}  // namespace fsgen::cli
