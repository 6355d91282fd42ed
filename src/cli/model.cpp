// fsgen model: a model's layer structure.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "compiler/model_config.h"

namespace fsgen::cli {

Command model_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("model", "print a model's layer structure (workloads/<name> or a config.json)");
  cmd->add_option("model", *name, "name under workloads/ or path of a Hugging Face config.json")->required();
  return {cmd, [name] {
            print_model_config(model_config_by_name(*name), std::cout);
            return 0;
          }};
}

}  // namespace fsgen::cli
