#include "cluster/apiserver/exec/sandbox_fs.h"

#include <sstream>

namespace trimtab::cluster::exec {

std::string SandboxFs::Resolve(const std::string& cwd, const std::string& path) {
  const std::string full = !path.empty() && path[0] == '/' ? path : cwd + "/" + path;
  std::vector<std::string> parts;
  std::stringstream in(full);
  std::string part;
  while (std::getline(in, part, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::string SandboxFs::Parent(const std::string& abs) {
  const size_t slash = abs.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : abs.substr(0, slash);
}

std::string SandboxFs::Base(const std::string& abs) {
  return abs == "/" ? "/" : abs.substr(abs.rfind('/') + 1);
}

const SandboxNode* SandboxFs::Find(const std::string& abs) const {
  auto it = nodes_.find(abs);
  return it == nodes_.end() ? nullptr : &it->second;
}

Status SandboxFs::MakeDirs(const std::string& abs, int64_t mtime) {
  if (const SandboxNode* n = Find(abs)) {
    return n->directory ? Status::Ok() : FailedPreconditionError(abs + ": Not a directory");
  }
  TRIMTAB_RETURN_IF_ERROR(MakeDirs(Parent(abs), mtime));
  nodes_[abs] = {.directory = true, .mode = 0755, .mtime = mtime};
  return Status::Ok();
}

Status SandboxFs::MakeDir(const std::string& abs, int64_t mtime) {
  if (Find(abs)) return AlreadyExistsError(abs + ": File exists");
  const SandboxNode* parent = Find(Parent(abs));
  if (!parent) return NotFoundError(abs + ": No such file or directory");
  if (!parent->directory) return FailedPreconditionError(Parent(abs) + ": Not a directory");
  nodes_[abs] = {.directory = true, .mode = 0755, .mtime = mtime};
  return Status::Ok();
}

Status SandboxFs::WriteFile(const std::string& abs, const std::string& data, bool append,
                            int64_t mtime, uint32_t mode) {
  const SandboxNode* parent = Find(Parent(abs));
  if (!parent) return NotFoundError(abs + ": No such file or directory");
  if (!parent->directory) return FailedPreconditionError(Parent(abs) + ": Not a directory");
  auto it = nodes_.find(abs);
  if (it != nodes_.end() && it->second.directory) {
    return FailedPreconditionError(abs + ": Is a directory");
  }
  const size_t old_size = it == nodes_.end() ? 0 : it->second.data.size();
  const size_t new_size = append ? old_size + data.size() : data.size();
  if (used_ - old_size + new_size > capacity_) {
    return FailedPreconditionError(abs + ": No space left on device");
  }
  used_ = used_ - old_size + new_size;
  if (it == nodes_.end()) {
    nodes_[abs] = {.directory = false, .mode = mode, .mtime = mtime, .data = data};
  } else {
    if (append) {
      it->second.data += data;
    } else {
      it->second.data = data;
    }
    it->second.mtime = mtime;
  }
  return Status::Ok();
}

Status SandboxFs::Remove(const std::string& abs, bool recursive) {
  const SandboxNode* n = Find(abs);
  if (!n) return NotFoundError(abs + ": No such file or directory");
  if (abs == "/") return PermissionDeniedError("/: refusing to remove the root");
  if (n->directory && !recursive && !List(abs).empty()) {
    return FailedPreconditionError(abs + ": Directory not empty");
  }
  for (const std::string& p : Walk(abs)) {
    auto it = nodes_.find(p);
    if (it == nodes_.end()) continue;
    used_ -= it->second.data.size();
    nodes_.erase(it);
  }
  return Status::Ok();
}

std::vector<std::string> SandboxFs::List(const std::string& abs) const {
  std::vector<std::string> out;
  const std::string prefix = abs == "/" ? "/" : abs + "/";
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    const std::string rest = it->first.substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string::npos) out.push_back(rest);
  }
  return out;
}

std::vector<std::string> SandboxFs::Walk(const std::string& abs) const {
  std::vector<std::string> out;
  if (!Find(abs)) return out;
  out.push_back(abs);
  const SandboxNode* n = Find(abs);
  if (!n->directory) return out;
  for (const std::string& name : List(abs)) {
    const std::string child = abs == "/" ? "/" + name : abs + "/" + name;
    for (std::string& p : Walk(child)) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace trimtab::cluster::exec
