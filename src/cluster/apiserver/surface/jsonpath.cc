#include "cluster/apiserver/surface/jsonpath.h"

#include <cctype>
#include <string>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

struct Step {
  enum class Type { kField, kIndex, kWildcard } type = Type::kField;
  std::string field;
  long long index = 0;
};

StatusOr<std::vector<Step>> Parse(std::string_view path) {
  std::string_view p = path;
  while (!p.empty() && std::isspace(static_cast<unsigned char>(p.front()))) p.remove_prefix(1);
  while (!p.empty() && std::isspace(static_cast<unsigned char>(p.back()))) p.remove_suffix(1);
  if (p.size() >= 2 && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
  if (!p.empty() && p.front() == '$') p.remove_prefix(1);
  auto bad = [&](const std::string& why) {
    return InvalidArgumentError("invalid JSONPath \"" + std::string(path) + "\": " + why);
  };
  std::vector<Step> steps;
  size_t i = 0;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      if (i < p.size() && p[i] == '*') {
        steps.push_back({Step::Type::kWildcard, "", 0});
        ++i;
        continue;
      }
      size_t start = i;
      while (i < p.size() && p[i] != '.' && p[i] != '[') ++i;
      if (i == start) {
        if (i == p.size() && steps.empty()) break;  // "." alone: the root
        return bad("empty field name");
      }
      steps.push_back({Step::Type::kField, std::string(p.substr(start, i - start)), 0});
    } else if (p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return bad("unterminated [");
      std::string_view inner = p.substr(i + 1, close - i - 1);
      i = close + 1;
      if (inner == "*") {
        steps.push_back({Step::Type::kWildcard, "", 0});
      } else if (inner.size() >= 2 && (inner.front() == '\'' || inner.front() == '"') &&
                 inner.back() == inner.front()) {
        steps.push_back({Step::Type::kField, std::string(inner.substr(1, inner.size() - 2)), 0});
      } else {
        std::string digits(inner);
        size_t used = 0;
        long long index = 0;
        try {
          index = std::stoll(digits, &used);
        } catch (...) {
          used = 0;
        }
        if (digits.empty() || used != digits.size()) return bad("unsupported subscript");
        steps.push_back({Step::Type::kIndex, "", index});
      }
    } else {
      return bad("expected '.' or '['");
    }
  }
  return steps;
}

}  // namespace

StatusOr<std::vector<Json>> EvaluateJsonPath(const Json& root, std::string_view path) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Step> steps, Parse(path));
  std::vector<const Json*> current = {&root};
  for (const Step& step : steps) {
    std::vector<const Json*> next;
    for (const Json* v : current) {
      switch (step.type) {
        case Step::Type::kField:
          if (v->is_object()) {
            auto it = v->find(step.field);
            if (it != v->end()) next.push_back(&*it);
          }
          break;
        case Step::Type::kIndex:
          if (v->is_array()) {
            long long n = static_cast<long long>(v->size());
            long long idx = step.index < 0 ? n + step.index : step.index;
            if (idx >= 0 && idx < n) next.push_back(&(*v)[static_cast<size_t>(idx)]);
          }
          break;
        case Step::Type::kWildcard:
          if (v->is_array() || v->is_object()) {
            for (const Json& item : *v) next.push_back(&item);
          }
          break;
      }
    }
    current = std::move(next);
  }
  std::vector<Json> out;
  out.reserve(current.size());
  for (const Json* v : current) out.push_back(*v);
  return out;
}

Json JsonPathFirst(const Json& root, std::string_view path) {
  StatusOr<std::vector<Json>> r = EvaluateJsonPath(root, path);
  if (!r.ok() || r->empty()) return Json();
  return r->front();
}

}  // namespace trimtab::cluster
