// Limits the process sets for itself at startup, so that load cannot take it down.
//
// RaiseOpenFileLimit: the soft RLIMIT_NOFILE is often 1024 while the hard limit is far higher;
// trimtab local holds a descriptor per watch, connection, SQLite file and simulated Flink
// listener, and ran out at ~1,000 watches. Raising the soft limit to the hard one (what Go's
// runtime does for every Go binary since 1.19, kube-apiserver included) needs no privilege.
//
// Thread-safety: call once from main() before starting threads.
#pragma once

#include <cstdint>

#include "common/status.h"

namespace trimtab {

struct OpenFileLimit {
  uint64_t before = 0;  // the soft limit found
  uint64_t after = 0;   // the soft limit now (== the hard limit unless setrlimit failed)
  uint64_t hard = 0;
};

// Raises the soft limit on open descriptors to the hard limit (capped at `cap`, since an
// "unlimited" hard limit would make some libraries allocate per-descriptor tables).
StatusOr<OpenFileLimit> RaiseOpenFileLimit(uint64_t cap = 1 << 20);

}  // namespace trimtab
