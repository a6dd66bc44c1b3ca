#include "core/scheduling/resources.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/quantity.h"

namespace trimtab::core::scheduling {

ResourceNameTable::ResourceNameTable() : names_{"cpu", "memory", "pods"} {}

StatusOr<int> ResourceNameTable::Intern(std::string_view name) {
  int found = Find(name);
  if (found >= 0) return found;
  if (size() >= kMaxResourceDims) {
    return InvalidArgumentError("too many distinct resource names (at most " +
                                std::to_string(kMaxResourceDims) + "), cannot add \"" +
                                std::string(name) + "\"");
  }
  names_.emplace_back(name);
  return size() - 1;
}

int ResourceNameTable::Find(std::string_view name) const {
  for (int i = 0; i < size(); ++i) {
    if (names_[i] == name) return i;
  }
  return -1;
}

Resources Resources::Unlimited() {
  Resources r;
  r.v_.fill(kUnlimited);
  return r;
}

Resources& Resources::Add(const Resources& o) {
  for (int i = 0; i < kMaxResourceDims; ++i) v_[i] += o.v_[i];
  return *this;
}

Resources& Resources::Sub(const Resources& o) {
  for (int i = 0; i < kMaxResourceDims; ++i) v_[i] -= o.v_[i];
  return *this;
}

Resources& Resources::Multi(double ratio) {
  for (int i = 0; i < kMaxResourceDims; ++i) v_[i] *= ratio;
  return *this;
}

Resources& Resources::MinDimension(const Resources& o) {
  for (int i = 0; i < kMaxResourceDims; ++i) {
    if (o.v_[i] == kUnlimited) continue;
    v_[i] = std::min(v_[i], o.v_[i]);
  }
  return *this;
}

Resources& Resources::MaxDimension(const Resources& o) {
  for (int i = 0; i < kMaxResourceDims; ++i) v_[i] = std::max(v_[i], o.v_[i]);
  return *this;
}

Resources Resources::ExceededPart(const Resources& left, const Resources& right) {
  Resources r;
  for (int i = 0; i < kMaxResourceDims; ++i) {
    r.v_[i] = left.v_[i] > right.v_[i] ? left.v_[i] - right.v_[i] : 0;
  }
  return r;
}

bool Resources::IsEmpty() const {
  for (int i = 0; i < kMaxResourceDims; ++i) {
    if (i == kPods) continue;
    if (v_[i] >= kMinResource) return false;
  }
  return true;
}

namespace {
inline bool LessEqualWithin(double l, double r) { return l < r || std::fabs(l - r) < kMinResource; }
}  // namespace

bool Resources::LessEqual(const Resources& o) const {
  for (int i = 0; i < kMaxResourceDims; ++i) {
    if (!LessEqualWithin(v_[i], o.v_[i])) return false;
  }
  return true;
}

bool Resources::LessEqualNamed(const Resources& o, const ResourceNameTable& names,
                               std::vector<std::string>* failed) const {
  bool ok = true;
  for (int i = 0; i < names.size(); ++i) {
    if (!LessEqualWithin(v_[i], o.v_[i])) {
      ok = false;
      if (failed) failed->push_back(names.Name(i));
    }
  }
  return ok;
}

bool Resources::LessEqualOnRequested(const Resources& o, const Resources& req,
                                     const ResourceNameTable& names,
                                     std::vector<std::string>* failed) const {
  bool ok = true;
  for (int i = 0; i < names.size(); ++i) {
    if (i == kPods) continue;
    if (req.v_[i] > 0 && v_[i] > o.v_[i]) {
      ok = false;
      if (!failed) return false;
      failed->push_back(names.Name(i));
    }
  }
  return ok;
}

bool Resources::Equal(const Resources& o) const {
  for (int i = 0; i < kMaxResourceDims; ++i) {
    if (!(v_[i] == o.v_[i] || std::fabs(v_[i] - o.v_[i]) < kMinResource)) return false;
  }
  return true;
}

std::string Resources::ToString(const ResourceNameTable& names) const {
  std::string out;
  char buf[64];
  for (int i = 0; i < names.size(); ++i) {
    if (i > 1 && v_[i] == 0) continue;
    if (!out.empty()) out += ", ";
    if (v_[i] == kUnlimited) {
      std::snprintf(buf, sizeof(buf), "maxFloat");
    } else {
      std::snprintf(buf, sizeof(buf), "%0.2f", v_[i]);
    }
    out += names.Name(i) + " " + buf;
  }
  return out;
}

namespace {

bool IsCountQuota(std::string_view name) {
  return name.starts_with("count/") || name.starts_with("requests.") ||
         name.starts_with("limits.");
}

}  // namespace

Status ResourcesFromJson(const Json& list, std::string_view path, ResourceNameTable* names,
                         Resources* out) {
  if (list.is_null()) return Status::Ok();
  if (!list.is_object()) {
    return InvalidArgumentError(std::string(path) + ": expected a ResourceList object, got " +
                                std::string(JsonTypeName(list)));
  }
  for (auto it = list.begin(); it != list.end(); ++it) {
    const std::string& name = it.key();
    const std::string field = JoinPath(path, name);
    TRIMTAB_ASSIGN_OR_RETURN(Quantity q, QuantityFromJson(it.value(), field));
    if (IsCountQuota(name)) continue;
    TRIMTAB_ASSIGN_OR_RETURN(int dim, names->Intern(name));
    if (dim == kCpu) {
      (*out)[dim] += static_cast<double>(q.MilliValue());
    } else if (dim == kMemory || dim == kPods) {
      (*out)[dim] += static_cast<double>(q.Value());
    } else {
      (*out)[dim] += static_cast<double>(q.MilliValue());
    }
  }
  return Status::Ok();
}

Json ResourcesToJson(const Resources& r, const ResourceNameTable& names) {
  Json out = Json::object();
  auto as_int = [](double v) {
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(v);
  };
  out["cpu"] = Quantity::FromMilli(as_int(r[kCpu])).String();
  out["memory"] = Quantity::FromInt(as_int(r[kMemory]), Quantity::Format::kBinarySI).String();
  for (int i = 2; i < names.size(); ++i) {
    if (r[i] == 0) continue;
    out[names.Name(i)] = i == kPods ? Quantity::FromInt(as_int(r[i])).String()
                                    : Quantity::FromMilli(as_int(r[i])).String();
  }
  return out;
}

}  // namespace trimtab::core::scheduling
