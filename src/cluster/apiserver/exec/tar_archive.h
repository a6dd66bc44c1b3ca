// Tar archives in the POSIX ustar format, as `kubectl cp` reads and writes them over exec (Go's
// archive/tar on the kubectl side): regular files and directories only.
//
// Writing: ustar headers (a name longer than 100 bytes is split into prefix and name at a '/';
// one that cannot be split gets a PAX extended header with its path), mode, size and mtime in
// octal, owner root, then the data padded to 512 bytes; two zero blocks end the archive.
// Reading: ustar and GNU/PAX variants of regular files ('0', '\0', '7'), directories ('5'), PAX
// extended headers ('x': path and size are used, the rest ignored; 'g' is skipped), GNU long names
// ('L'); symbolic and hard links, devices and FIFOs are refused with an error naming the entry
// (kubectl refuses links outside the destination too). A bad checksum or a truncated entry is an
// error naming the entry.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab::cluster::exec {

struct TarEntry {
  std::string name;       // as in the archive ("etc/hosts", "dir/" for a directory)
  bool directory = false;
  uint32_t mode = 0644;   // permission bits
  int64_t mtime = 0;      // seconds since the epoch
  std::string data;       // a regular file's content
};

// The archive of `entries`, in order.
std::string WriteTar(const std::vector<TarEntry>& entries);

// The entries of `archive`.
StatusOr<std::vector<TarEntry>> ReadTar(std::string_view archive);

}  // namespace trimtab::cluster::exec
