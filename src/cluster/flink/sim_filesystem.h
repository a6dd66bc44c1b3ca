// SimFileSystem: where the simulated Flink clusters keep savepoints and checkpoints. Any URI a
// Flink configuration may hold maps to a local path under one root, so every scheme works
// without an object store and the files outlive the JobManagers that wrote them:
//
//   file:///flink/sp/savepoint-1   -> <root>/file/flink/sp/savepoint-1
//   s3://bucket/checkpoints/x      -> <root>/s3/bucket/checkpoints/x
//   /flink/sp (no scheme)          -> <root>/file/flink/sp
//
// A savepoint or checkpoint is a directory holding a `_metadata` file (snapshot_metadata.h).
// Nothing escapes the root: the scheme must be a URI scheme (RFC 3986: a letter, then letters,
// digits, `+`, `-`, `.`), `..` segments and NUL bytes are rejected, and the path, normalised and
// with symbolic links resolved, must lie below the root. RemoveAll refuses a scheme's own
// directory. Every error is InvalidArgument naming the URI.
//
// Usage:
//   SimFileSystem fs(data_dir + "/flink-fs");
//   TRIMTAB_RETURN_IF_ERROR(fs.WriteFile("s3://b/sp-1/_metadata", text));
//
// Thread-safety: safe for concurrent use (each call is independent file I/O).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace trimtab::sim::flink {

class SimFileSystem {
 public:
  explicit SimFileSystem(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  // The local path of `uri`, normalised. Errors: empty URI, bad scheme, `..`, NUL, escapes.
  StatusOr<std::string> LocalPath(std::string_view uri) const;

  // Creates parent directories as needed.
  Status WriteFile(std::string_view uri, std::string_view contents) const;
  StatusOr<std::string> ReadFile(std::string_view uri) const;
  bool Exists(std::string_view uri) const;
  // Deletes a file or a directory tree. NotFound when nothing is there.
  Status RemoveAll(std::string_view uri) const;

  // "s3://b/x" + "chk-1" -> "s3://b/x/chk-1" (no doubled slashes).
  static std::string Join(std::string_view dir, std::string_view name);

 private:
  std::string root_;
};

}  // namespace trimtab::sim::flink
