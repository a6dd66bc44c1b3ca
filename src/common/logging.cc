#include "common/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace trimtab {

Status InitLogging(std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    return InvalidArgumentError("--log-level: unknown level \"" + std::string(level) +
                                "\" (want trace, debug, info, warn, error or off)");
  }
  auto logger = spdlog::stderr_color_mt("trimtab");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  spdlog::set_default_logger(logger);
  spdlog::set_level(parsed);
  return Status::Ok();
}

}  // namespace trimtab
