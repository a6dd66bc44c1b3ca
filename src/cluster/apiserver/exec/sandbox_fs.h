// SandboxFs: the file system of one simulated container, in memory: directories and regular
// files with a mode and a modification time (no links, owners or devices). What `kubectl exec`
// and `kubectl cp` see in a pod of `trimtab local` (docs/local-cluster.md, "exec and cp").
//
// Paths are absolute after Resolve ("/etc/hosts"); "." and ".." are folded, ".." of "/" is "/".
// The total size of the files is bounded (`capacity_bytes`): a write past it fails with ENOSPC's
// message, so a runaway `kubectl cp` cannot exhaust the server's memory.
//
// Thread-safety: not thread-safe; the owner (ContainerSandbox) serializes access.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace trimtab::cluster::exec {

struct SandboxNode {
  bool directory = false;
  uint32_t mode = 0644;
  int64_t mtime = 0;
  std::string data;
};

class SandboxFs {
 public:
  explicit SandboxFs(size_t capacity_bytes) : capacity_(capacity_bytes) {
    nodes_["/"] = {.directory = true, .mode = 0755};
  }

  // `path` made absolute against `cwd` and normalized.
  static std::string Resolve(const std::string& cwd, const std::string& path);
  static std::string Parent(const std::string& abs);
  static std::string Base(const std::string& abs);

  const SandboxNode* Find(const std::string& abs) const;
  // Creates the directory and its missing parents (mkdir -p); an existing file in the way is
  // an error ("Not a directory").
  Status MakeDirs(const std::string& abs, int64_t mtime);
  // mkdir without -p: the parent must exist, the path must not.
  Status MakeDir(const std::string& abs, int64_t mtime);
  // Creates or replaces (append: extends) a regular file; its directory must exist.
  Status WriteFile(const std::string& abs, const std::string& data, bool append, int64_t mtime,
                   uint32_t mode = 0644);
  // Removes a file, or a directory (with everything below it when `recursive`; otherwise it
  // must be empty).
  Status Remove(const std::string& abs, bool recursive);
  // The names directly inside directory `abs`, sorted.
  std::vector<std::string> List(const std::string& abs) const;
  // `abs` and everything below it, parents first, sorted.
  std::vector<std::string> Walk(const std::string& abs) const;
  size_t used_bytes() const { return used_; }

 private:
  std::map<std::string, SandboxNode> nodes_;
  size_t capacity_;
  size_t used_ = 0;
};

}  // namespace trimtab::cluster::exec
