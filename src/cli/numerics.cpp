// fsgen numerics: the fixed-point attention pipeline's error against FP32.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "sim/numerics_report.h"

namespace fsgen::cli {

Command numerics_command(CLI::App& app) {
  auto model_path = std::make_shared<std::string>("../shared/models/stories260K.bin");
  auto* cmd = app.add_subcommand("numerics", "error of the fixed-point attention pipeline against FP32");
  cmd->add_option("--model", *model_path, "llama2.c checkpoint for real attention inputs")->capture_default_str();
  return {cmd, [model_path] {
            std::string skipped;
            const auto rows = measure_attention_error(*model_path, skipped);
            print_numerics(rows, skipped, std::cout);
            return 0;
          }};
}

}  // namespace fsgen::cli
