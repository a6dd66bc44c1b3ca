#include "cluster/apiserver/surface/strategic_merge.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

constexpr std::string_view kPatch = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

enum class Outcome { kKeep, kDelete };

class Merger {
 public:
  explicit Merger(const ResourceType& type) : type_(type) {}

  // Merges `patch` into the map `orig` (an object) at `path`.
  StatusOr<Outcome> MergeMap(Json& orig, const Json& patch, const std::string& path) {
    if (auto p = patch.find(kPatch); p != patch.end()) {
      const std::string directive = p->is_string() ? p->get<std::string>() : p->dump();
      if (directive == "delete") return Outcome::kDelete;
      if (directive == "replace") {
        Json replaced = Json::object();
        TRIMTAB_ASSIGN_OR_RETURN(Outcome ignored, MergeMap(replaced, WithoutPatchDirective(patch), path));
        (void)ignored;
        orig = std::move(replaced);
        return Outcome::kKeep;
      }
      if (directive != "merge") {
        return InvalidArgumentError("unknown patch type: " + directive + " in map at " +
                                    Display(path));
      }
    }
    if (!orig.is_object()) orig = Json::object();
    if (auto r = patch.find(kRetainKeys); r != patch.end()) {
      if (!r->is_array()) {
        return InvalidArgumentError("$retainKeys at " + Display(path) + " must be a list");
      }
      std::vector<std::string> drop;
      for (auto it = orig.begin(); it != orig.end(); ++it) {
        if (std::find(r->begin(), r->end(), Json(it.key())) == r->end()) drop.push_back(it.key());
      }
      for (const std::string& k : drop) orig.erase(k);
    }
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      const std::string& key = it.key();
      if (!key.starts_with(kDeleteFromPrimitiveList)) continue;
      const std::string field = key.substr(kDeleteFromPrimitiveList.size());
      if (!it->is_array()) {
        return InvalidArgumentError(key + " at " + Display(path) + " must be a list");
      }
      auto target = orig.find(field);
      if (target == orig.end() || !target->is_array()) continue;
      Json kept = Json::array();
      for (const Json& v : *target) {
        if (std::find(it->begin(), it->end(), v) == it->end()) kept.push_back(v);
      }
      *target = std::move(kept);
    }
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      const std::string& key = it.key();
      if (key == kPatch || key == kRetainKeys || key.starts_with(kSetElementOrder) ||
          key.starts_with(kDeleteFromPrimitiveList)) {
        continue;
      }
      const std::string child = path.empty() ? key : path + "." + key;
      const Json& value = *it;
      if (value.is_null()) {
        orig.erase(key);
      } else if (value.is_object()) {
        Json& target = orig[key];
        if (!target.is_object()) target = Json::object();
        TRIMTAB_ASSIGN_OR_RETURN(Outcome outcome, MergeMap(target, value, child));
        if (outcome == Outcome::kDelete) orig.erase(key);
      } else if (value.is_array()) {
        Json& target = orig[key];
        if (!target.is_array()) target = Json::array();
        TRIMTAB_RETURN_IF_ERROR(MergeList(target, value, child));
      } else {
        orig[key] = value;
      }
    }
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      const std::string& key = it.key();
      if (!key.starts_with(kSetElementOrder)) continue;
      const std::string field = key.substr(kSetElementOrder.size());
      auto target = orig.find(field);
      if (target == orig.end() || !target->is_array()) continue;
      if (!it->is_array()) return InvalidArgumentError(key + " at " + Display(path) + " must be a list");
      const std::string child = path.empty() ? field : path + "." + field;
      TRIMTAB_RETURN_IF_ERROR(Reorder(*target, *it, MergeKey(child), child));
    }
    return Outcome::kKeep;
  }

 private:
  static std::string Display(const std::string& path) { return path.empty() ? "<root>" : path; }

  static Json WithoutPatchDirective(const Json& m) {
    Json out = m;
    out.erase(std::string(kPatch));
    return out;
  }

  // nullopt: the list at `path` has no merge strategy (replace).
  std::optional<std::string> MergeKey(const std::string& path) const {
    auto it = type_.merge_keys.find(path);
    if (it == type_.merge_keys.end()) return std::nullopt;
    return it->second;
  }

  static bool IsDirectiveItem(const Json& item, std::string_view value) {
    return item.is_object() && item.size() == 1 && item.contains(kPatch) &&
           item[std::string(kPatch)] == value;
  }

  // A copy of `value` with every directive resolved against nothing (for new items and
  // replaced lists).
  StatusOr<Json> Fresh(const Json& value, const std::string& path) {
    if (value.is_object()) {
      Json out = Json::object();
      TRIMTAB_ASSIGN_OR_RETURN(Outcome outcome, MergeMap(out, value, path));
      if (outcome == Outcome::kDelete) return Json();
      return out;
    }
    return value;
  }

  Status MergeList(Json& orig, const Json& patch, const std::string& path) {
    std::optional<std::string> key = MergeKey(path);
    if (!key.has_value()) {
      orig = Json::array();
      for (const Json& item : patch) {
        if (IsDirectiveItem(item, "replace")) continue;
        TRIMTAB_ASSIGN_OR_RETURN(Json fresh, Fresh(item, path + "[]"));
        orig.push_back(std::move(fresh));
      }
      return Status::Ok();
    }
    const bool replace = std::any_of(patch.begin(), patch.end(), [](const Json& item) {
      return IsDirectiveItem(item, "replace");
    });
    if (replace) orig = Json::array();
    if (key->empty()) {  // a set of primitives
      for (const Json& item : patch) {
        if (IsDirectiveItem(item, "replace")) continue;
        if (std::find(orig.begin(), orig.end(), item) == orig.end()) orig.push_back(item);
      }
      return Status::Ok();
    }
    for (const Json& item : patch) {
      if (IsDirectiveItem(item, "replace")) continue;
      if (!item.is_object()) {
        return InvalidArgumentError("unable to merge list " + path + ": item " + item.dump() +
                                    " is not a map");
      }
      auto kv = item.find(*key);
      if (kv == item.end()) {
        return InvalidArgumentError("map: " + item.dump() + " does not contain declared merge key: " +
                                    *key);
      }
      auto existing = std::find_if(orig.begin(), orig.end(), [&](const Json& o) {
        return o.is_object() && o.contains(*key) && o[*key] == *kv;
      });
      const bool deleting = item.contains(kPatch) && item[std::string(kPatch)] == "delete";
      if (deleting) {
        orig.erase(std::remove_if(orig.begin(), orig.end(),
                                  [&](const Json& o) {
                                    return o.is_object() && o.contains(*key) && o[*key] == *kv;
                                  }),
                   orig.end());
        continue;
      }
      if (existing != orig.end()) {
        TRIMTAB_ASSIGN_OR_RETURN(Outcome outcome, MergeMap(*existing, item, path + "[]"));
        if (outcome == Outcome::kDelete) orig.erase(existing);
      } else {
        TRIMTAB_ASSIGN_OR_RETURN(Json fresh, Fresh(item, path + "[]"));
        if (!fresh.is_null()) orig.push_back(std::move(fresh));
      }
    }
    return Status::Ok();
  }

  // Orders `list` as `order` says; items `order` does not mention keep their relative order
  // after the ordered ones.
  static Status Reorder(Json& list, const Json& order, const std::optional<std::string>& key,
                        const std::string& path) {
    auto id_of = [&](const Json& item) -> Json {
      if (key.has_value() && !key->empty()) {
        return item.is_object() && item.contains(*key) ? item[*key] : Json();
      }
      return item;
    };
    Json ordered = Json::array();
    std::vector<bool> used(list.size(), false);
    for (const Json& o : order) {
      const Json want = id_of(o);
      if (want.is_null()) {
        return InvalidArgumentError("$setElementOrder/" + path + ": item " + o.dump() +
                                    " lacks the merge key");
      }
      for (size_t i = 0; i < list.size(); ++i) {
        if (!used[i] && id_of(list[i]) == want) {
          used[i] = true;
          ordered.push_back(list[i]);
          break;
        }
      }
    }
    for (size_t i = 0; i < list.size(); ++i) {
      if (!used[i]) ordered.push_back(list[i]);
    }
    list = std::move(ordered);
    return Status::Ok();
  }

  const ResourceType& type_;
};

}  // namespace

StatusOr<Json> StrategicMergePatch(const ResourceType& type, const Json& original,
                                   const Json& patch) {
  if (!patch.is_object()) {
    return InvalidArgumentError("strategic merge patch must be a JSON object, got " +
                                std::string(JsonTypeName(patch)));
  }
  Json result = original.is_object() ? original : Json::object();
  Merger merger(type);
  TRIMTAB_ASSIGN_OR_RETURN(Outcome outcome, merger.MergeMap(result, patch, ""));
  if (outcome == Outcome::kDelete) return Json::object();
  return result;
}

}  // namespace trimtab::cluster
