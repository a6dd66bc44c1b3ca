#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"

// Set by the build (CMake cache variable TRIMTAB_VERSION, the project version by default; the
// Dockerfile passes the image's tag).
#ifndef TRIMTAB_VERSION
#define TRIMTAB_VERSION "unknown"
#endif

namespace trimtab::cli {

void RegisterVersionCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("version", "Print the trimtab version");
  cmd->callback([exit_code] {
    std::printf("trimtab %s\n", TRIMTAB_VERSION);
    *exit_code = 0;
  });
}

}  // namespace trimtab::cli
