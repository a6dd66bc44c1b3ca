#include "cluster/apiserver/storage/patch.h"

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

Status ApplyError(std::string message) { return FailedPreconditionError(std::move(message)); }

// Parses an array index token; "-" (append) is handled by the caller.
bool ParseIndex(const std::string& token, size_t* index) {
  if (token.empty() || token.size() > 18) return false;
  if (token.size() > 1 && token[0] == '0') return false;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  *index = std::stoull(token);
  return true;
}

// Walks to the container holding the last token. Returns nullptr with an error when missing.
Json* Parent(Json* doc, const std::vector<std::string>& tokens, const std::string& pointer,
             Status* error) {
  Json* cur = doc;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (cur->is_object()) {
      auto it = cur->find(t);
      if (it == cur->end()) {
        *error = ApplyError("doc is missing path: \"" + pointer + "\"");
        return nullptr;
      }
      cur = &*it;
    } else if (cur->is_array()) {
      size_t idx;
      if (!ParseIndex(t, &idx) || idx >= cur->size()) {
        *error = ApplyError("doc is missing path: \"" + pointer + "\"");
        return nullptr;
      }
      cur = &(*cur)[idx];
    } else {
      *error = ApplyError("doc is missing path: \"" + pointer + "\"");
      return nullptr;
    }
  }
  return cur;
}

StatusOr<Json> Get(const Json& doc, const std::string& pointer) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<std::string> tokens, ParseJsonPointer(pointer));
  const Json* cur = &doc;
  for (const auto& t : tokens) {
    if (cur->is_object()) {
      auto it = cur->find(t);
      if (it == cur->end()) return ApplyError("doc is missing path: \"" + pointer + "\"");
      cur = &*it;
    } else if (cur->is_array()) {
      size_t idx;
      if (!ParseIndex(t, &idx) || idx >= cur->size()) {
        return ApplyError("doc is missing path: \"" + pointer + "\"");
      }
      cur = &(*cur)[idx];
    } else {
      return ApplyError("doc is missing path: \"" + pointer + "\"");
    }
  }
  return *cur;
}

Status Add(Json* doc, const std::string& pointer, Json value) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<std::string> tokens, ParseJsonPointer(pointer));
  if (tokens.empty()) {
    *doc = std::move(value);
    return Status::Ok();
  }
  Status error;
  Json* parent = Parent(doc, tokens, pointer, &error);
  if (!parent) return error;
  const std::string& last = tokens.back();
  if (parent->is_object()) {
    (*parent)[last] = std::move(value);
    return Status::Ok();
  }
  if (parent->is_array()) {
    if (last == "-") {
      parent->push_back(std::move(value));
      return Status::Ok();
    }
    size_t idx;
    if (!ParseIndex(last, &idx) || idx > parent->size()) {
      return ApplyError("add operation index out of bounds: \"" + pointer + "\"");
    }
    parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(idx), std::move(value));
    return Status::Ok();
  }
  return ApplyError("doc is missing path: \"" + pointer + "\"");
}

StatusOr<Json> Remove(Json* doc, const std::string& pointer) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<std::string> tokens, ParseJsonPointer(pointer));
  if (tokens.empty()) {
    Json old = std::move(*doc);
    *doc = nullptr;
    return old;
  }
  Status error;
  Json* parent = Parent(doc, tokens, pointer, &error);
  if (!parent) return error;
  const std::string& last = tokens.back();
  if (parent->is_object()) {
    auto it = parent->find(last);
    if (it == parent->end()) return ApplyError("unable to remove nonexistent key: \"" + pointer + "\"");
    Json old = std::move(*it);
    parent->erase(it);
    return old;
  }
  if (parent->is_array()) {
    size_t idx;
    if (!ParseIndex(last, &idx) || idx >= parent->size()) {
      return ApplyError("remove operation index out of bounds: \"" + pointer + "\"");
    }
    Json old = std::move((*parent)[idx]);
    parent->erase(parent->begin() + static_cast<std::ptrdiff_t>(idx));
    return old;
  }
  return ApplyError("doc is missing path: \"" + pointer + "\"");
}

StatusOr<std::string> Member(const Json& op, const char* name, size_t index) {
  auto it = op.find(name);
  if (it == op.end() || !it->is_string()) {
    return InvalidArgumentError("json patch operation " + std::to_string(index) +
                                ": missing or non-string \"" + name + "\"");
  }
  return it->get<std::string>();
}

}  // namespace

StatusOr<std::vector<std::string>> ParseJsonPointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') {
    return InvalidArgumentError("invalid JSON pointer \"" + std::string(pointer) +
                                "\": must start with /");
  }
  std::string cur;
  for (size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    char c = pointer[i];
    if (c == '~') {
      if (i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        cur.push_back(pointer[i + 1] == '0' ? '~' : '/');
        ++i;
        continue;
      }
      return InvalidArgumentError("invalid JSON pointer \"" + std::string(pointer) +
                                  "\": bad ~ escape");
    }
    cur.push_back(c);
  }
  return tokens;
}

StatusOr<Json> ApplyJsonPatch(const Json& document, const Json& patch) {
  if (!patch.is_array()) {
    return InvalidArgumentError("json patch must be an array of operations, got " +
                                std::string(JsonTypeName(patch)));
  }
  Json doc = document;
  size_t copied_bytes = 0;
  for (size_t i = 0; i < patch.size(); ++i) {
    const Json& op = patch[i];
    if (!op.is_object()) {
      return InvalidArgumentError("json patch operation " + std::to_string(i) +
                                  " is not an object");
    }
    TRIMTAB_ASSIGN_OR_RETURN(std::string kind, Member(op, "op", i));
    TRIMTAB_ASSIGN_OR_RETURN(std::string path, Member(op, "path", i));
    TRIMTAB_RETURN_IF_ERROR(ParseJsonPointer(path).status());
    if (kind == "add" || kind == "replace" || kind == "test") {
      auto value = op.find("value");
      if (value == op.end()) {
        return InvalidArgumentError("json patch operation " + std::to_string(i) + " (" + kind +
                                    "): missing \"value\"");
      }
      if (kind == "add") {
        TRIMTAB_RETURN_IF_ERROR(Add(&doc, path, *value));
      } else if (kind == "replace") {
        auto removed = Remove(&doc, path);
        if (!removed.ok()) {
          return ApplyError("replace operation does not apply: doc is missing key: " + path);
        }
        TRIMTAB_RETURN_IF_ERROR(Add(&doc, path, *value));
      } else {
        auto current = Get(doc, path);
        if (!current.ok() || *current != *value) {
          return ApplyError("testing value " + path + " failed: test failed");
        }
      }
    } else if (kind == "remove") {
      TRIMTAB_RETURN_IF_ERROR(Remove(&doc, path).status());
    } else if (kind == "move" || kind == "copy") {
      TRIMTAB_ASSIGN_OR_RETURN(std::string from, Member(op, "from", i));
      TRIMTAB_RETURN_IF_ERROR(ParseJsonPointer(from).status());
      if (kind == "move") {
        if (path.size() > from.size() && path.compare(0, from.size(), from) == 0 &&
            path[from.size()] == '/') {
          return ApplyError("move operation cannot move \"" + from + "\" into its own child");
        }
        TRIMTAB_ASSIGN_OR_RETURN(Json value, Remove(&doc, from));
        TRIMTAB_RETURN_IF_ERROR(Add(&doc, path, std::move(value)));
      } else {
        TRIMTAB_ASSIGN_OR_RETURN(Json value, Get(doc, from));
        // Copies double what they copy: ~30 of them took a 1 KiB object past gigabytes.
        copied_bytes += value.dump().size();
        if (copied_bytes > kMaxJsonPatchCopyBytes) {
          return ApplyError("Unable to complete the copy, the accumulated size increase of copy is " +
                            std::to_string(copied_bytes) + ", exceeding the limit " +
                            std::to_string(kMaxJsonPatchCopyBytes));
        }
        TRIMTAB_RETURN_IF_ERROR(Add(&doc, path, std::move(value)));
      }
    } else {
      return InvalidArgumentError("json patch operation " + std::to_string(i) +
                                  ": unexpected kind \"" + kind + "\"");
    }
  }
  return doc;
}

Json ApplyMergePatch(const Json& target, const Json& patch) {
  if (!patch.is_object()) return patch;
  Json result = target.is_object() ? target : Json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it.value().is_null()) {
      result.erase(it.key());
    } else {
      auto existing = result.find(it.key());
      result[it.key()] = ApplyMergePatch(existing == result.end() ? Json() : *existing, it.value());
    }
  }
  return result;
}

}  // namespace trimtab::cluster
