#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"

namespace trimtab::cli {

void RegisterVersionCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("version", "Print the trimtab version");
  cmd->callback([exit_code] {
    std::printf("trimtab 0.1.0\n");
    *exit_code = 0;
  });
}

}  // namespace trimtab::cli
