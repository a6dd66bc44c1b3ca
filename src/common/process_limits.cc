#include "common/process_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace trimtab {

StatusOr<OpenFileLimit> RaiseOpenFileLimit(uint64_t cap) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return UnavailableError(std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno));
  }
  OpenFileLimit out{.before = lim.rlim_cur, .after = lim.rlim_cur, .hard = lim.rlim_max};
  const rlim_t target = std::min<rlim_t>(lim.rlim_max, static_cast<rlim_t>(cap));
  if (target <= lim.rlim_cur) return out;
  lim.rlim_cur = target;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return UnavailableError(std::string("setrlimit(RLIMIT_NOFILE, ") + std::to_string(target) +
                            "): " + std::strerror(errno));
  }
  out.after = target;
  return out;
}

}  // namespace trimtab
