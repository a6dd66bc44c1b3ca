// Logging: a thin setup layer over spdlog. Components log with spdlog's free functions
// (spdlog::info, spdlog::warn ...) from their .cc files; headers never include spdlog.
//
// Thread-safety: InitLogging is called once from main() before any thread starts.
#pragma once

#include <string_view>

#include "common/status.h"

namespace trimtab {

// Level names: trace, debug, info, warn, error, off. Logs go to stderr so that stdout stays
// machine-readable for commands like `trimtab eval`.
Status InitLogging(std::string_view level);

}  // namespace trimtab
