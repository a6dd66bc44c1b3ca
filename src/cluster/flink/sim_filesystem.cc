#include "cluster/flink/sim_filesystem.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace trimtab::sim::flink {

namespace fs = std::filesystem;

namespace {

// RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
bool ValidScheme(std::string_view scheme) {
  if (scheme.empty() || !std::isalpha(static_cast<unsigned char>(scheme[0]))) return false;
  for (char c : scheme) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

// True when `path` is `base` or below it (both lexically normal and absolute or both relative).
bool Within(const fs::path& base, const fs::path& path) {
  auto b = base.begin();
  auto p = path.begin();
  for (; b != base.end(); ++b, ++p) {
    if (b->empty() && std::next(b) == base.end()) break;  // trailing separator of `base`
    if (p == path.end() || *p != *b) return false;
  }
  return true;
}

}  // namespace

StatusOr<std::string> SimFileSystem::LocalPath(std::string_view uri) const {
  if (uri.empty()) return InvalidArgumentError("empty path");
  const auto refuse = [&](std::string_view why) {
    return InvalidArgumentError("path \"" + std::string(uri) + "\": " + std::string(why));
  };
  if (uri.find('\0') != std::string_view::npos) return refuse("NUL bytes are not allowed");
  std::string scheme = "file";
  std::string_view rest = uri;
  const size_t sep = uri.find("://");
  if (sep != std::string_view::npos && sep > 0) {
    scheme = std::string(uri.substr(0, sep));
    rest = uri.substr(sep + 3);
    if (!ValidScheme(scheme)) return refuse("invalid URI scheme \"" + scheme + "\"");
  } else if (uri.starts_with("file:")) {
    scheme = "file";
    rest = uri.substr(5);
  }
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string path = root_ + "/" + scheme;
  size_t i = 0;
  while (i <= rest.size()) {
    size_t j = rest.find('/', i);
    if (j == std::string_view::npos) j = rest.size();
    const std::string_view seg = rest.substr(i, j - i);
    if (seg == "..") return refuse("\"..\" is not allowed");
    if (!seg.empty() && seg != ".") {
      path += "/";
      path += seg;
    }
    i = j + 1;
  }
  // Belt and braces: whatever the rules above let through must still normalise to a path below
  // the root, and resolving symbolic links must not lead out of it either.
  const fs::path root = fs::path(root_).lexically_normal();
  const fs::path normal = fs::path(path).lexically_normal();
  if (!Within(root, normal) || normal == root) return refuse("leaves the file system's root");
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  const fs::path real = ec ? fs::path() : fs::weakly_canonical(normal, ec);
  if (!ec && !Within(real_root, real)) return refuse("resolves outside the file system's root");
  return normal.string();
}

Status SimFileSystem::WriteFile(std::string_view uri, std::string_view contents) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::string path, LocalPath(uri));
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return UnavailableError("create directory for " + std::string(uri) + ": " + ec.message());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return UnavailableError("write " + std::string(uri) + ": cannot open " + tmp);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out) return UnavailableError("write " + std::string(uri) + ": write failed");
  }
  fs::rename(tmp, path, ec);
  if (ec) return UnavailableError("write " + std::string(uri) + ": " + ec.message());
  return Status::Ok();
}

StatusOr<std::string> SimFileSystem::ReadFile(std::string_view uri) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::string path, LocalPath(uri));
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("file " + std::string(uri) + " does not exist");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool SimFileSystem::Exists(std::string_view uri) const {
  StatusOr<std::string> path = LocalPath(uri);
  std::error_code ec;
  return path.ok() && fs::exists(*path, ec);
}

Status SimFileSystem::RemoveAll(std::string_view uri) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::string path, LocalPath(uri));
  // A scheme's own directory (`s3://`, `file:///`) holds every cluster's snapshots: never delete it.
  if (fs::path(path).parent_path() == fs::path(root_).lexically_normal()) {
    return InvalidArgumentError("delete " + std::string(uri) + ": refusing to delete the root of a scheme");
  }
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFoundError(std::string(uri) + " does not exist");
  fs::remove_all(path, ec);
  if (ec) return UnavailableError("delete " + std::string(uri) + ": " + ec.message());
  return Status::Ok();
}

std::string SimFileSystem::Join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  while (!out.empty() && out.back() == '/' && !out.ends_with("://")) out.pop_back();
  if (!out.empty() && out.back() != '/') out += "/";
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  out += name;
  return out;
}

}  // namespace trimtab::sim::flink
