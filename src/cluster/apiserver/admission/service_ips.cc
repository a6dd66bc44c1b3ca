#include "cluster/apiserver/admission/service_ips.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {
namespace {

// Go's %#v of a []string, as upstream prints the field value in these messages.
std::string GoStrings(const Json& list) {
  std::string out = "[]string{";
  bool first = true;
  if (list.is_array()) {
    for (const Json& v : list) {
      if (!first) out += ", ";
      first = false;
      out += "\"" + (v.is_string() ? v.get<std::string>() : v.dump()) + "\"";
    }
  }
  return out + "}";
}

std::string StringAt(const Json& spec, const char* field) {
  return spec.contains(field) && spec[field].is_string() ? spec[field].get<std::string>() : "";
}

}  // namespace

StatusOr<std::unique_ptr<ClusterIpAllocator>> ClusterIpAllocator::Create(std::string_view cidr) {
  auto range = Ipv4Range::Parse(cidr);
  if (!range.ok()) return range.status().WithContext("service cluster IP range");
  if (!Ipv4Range(0x7f000000, 8).Contains(range->network()) || range->prefix_length() < 8) {
    return InvalidArgumentError("service cluster IP range " + range->String() +
                                " must lie inside 127.0.0.0/8 (loopback)");
  }
  return std::unique_ptr<ClusterIpAllocator>(new ClusterIpAllocator(*range));
}

bool ClusterIpAllocator::Usable(uint32_t address) const {
  return range_.Contains(address) && address != range_.network() &&
         address != range_.broadcast() && address != kLoopbackAddress;
}

ApiResult<bool> ClusterIpAllocator::AllocateOnCreate(const ResourceType& type, Json* service,
                                                     bool dry_run, std::string* allocated) {
  allocated->clear();
  const std::string name = MetaString(*service, "name");
  Json& spec = (*service)["spec"];
  if (!spec.is_object()) spec = Json::object();
  if (StringAt(spec, "type") == "ExternalName") {
    spec.erase("clusterIP");
    spec.erase("clusterIPs");
    return true;
  }
  std::string ip = StringAt(spec, "clusterIP");
  Json ips = spec.contains("clusterIPs") ? spec["clusterIPs"] : Json();
  if (ips.is_array() && !ips.empty()) {
    std::string first = ips[0].is_string() ? ips[0].get<std::string>() : "";
    if (!ip.empty() && first != ip) {
      return Invalid(type, name,
                     {Cause("FieldValueInvalid", "spec.clusterIPs[0]",
                            "Invalid value: " + GoStrings(ips) + ": must match clusterIP when set")});
    }
    if (ips.size() > 1) {
      return Invalid(type, name,
                     {Cause("FieldValueInvalid", "spec.clusterIPs",
                            "Invalid value: " + GoStrings(ips) +
                                ": this cluster is single-stack IPv4 and takes one clusterIP")});
    }
    ip = first;
  }
  spec["ipFamilies"] = Json::array({"IPv4"});
  spec["ipFamilyPolicy"] = "SingleStack";
  if (ip == "None") {
    spec["clusterIP"] = "None";
    spec["clusterIPs"] = Json::array({"None"});
    return true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t address = 0;
  if (ip.empty()) {
    const uint64_t n = range_.size();
    bool found = false;
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t candidate = range_.network() + static_cast<uint32_t>((next_ - range_.network() + i) % n);
      if (Usable(candidate) && !used_.count(candidate)) {
        address = candidate;
        found = true;
        break;
      }
    }
    if (!found) {
      return InternalServerError("failed to allocate a serviceIP: range is full");
    }
  } else {
    auto parsed = ParseIpv4(ip);
    if (!parsed) {
      return Invalid(type, name,
                     {Cause("FieldValueInvalid", "spec.clusterIPs[0]",
                            "Invalid value: \"" + ip +
                                "\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")});
    }
    std::string why;
    if (!Usable(*parsed)) {
      why = "the provided IP (" + ip + ") is not in the valid range. The range of valid IPs is " +
            range_.String();
    } else if (used_.count(*parsed)) {
      why = "provided IP is already allocated";
    }
    if (!why.empty()) {
      return Invalid(type, name,
                     {Cause("FieldValueInvalid", "spec.clusterIPs",
                            "Invalid value: " + GoStrings(Json::array({ip})) +
                                ": failed to allocate IP " + ip + ": " + why)});
    }
    address = *parsed;
  }
  const std::string text = FormatIpv4(address);
  spec["clusterIP"] = text;
  spec["clusterIPs"] = Json::array({text});
  if (!dry_run) {
    used_.insert(address);
    next_ = address + 1;
    *allocated = text;
  }
  return true;
}

ApiResult<bool> ClusterIpAllocator::KeepOnUpdate(const ResourceType& type, const Json& current,
                                                 Json* desired) {
  const Json& cur_spec = current.contains("spec") ? current["spec"] : Json();
  if (!cur_spec.is_object()) return true;
  Json& spec = (*desired)["spec"];
  if (!spec.is_object()) spec = Json::object();
  const std::string cur_ip = StringAt(cur_spec, "clusterIP");
  if (cur_ip.empty()) return true;
  std::string ip = StringAt(spec, "clusterIP");
  bool ips_given = spec.contains("clusterIPs") && spec["clusterIPs"].is_array() &&
                   !spec["clusterIPs"].empty();
  if (ip.empty() && !ips_given) {
    for (const char* f : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
      if (cur_spec.contains(f)) spec[f] = cur_spec[f];
    }
    return true;
  }
  Json ips = ips_given ? spec["clusterIPs"] : Json::array({ip});
  if (ips[0] != cur_ip || (!ip.empty() && ip != cur_ip)) {
    return Invalid(type, MetaString(current, "name"),
                   {Cause("FieldValueInvalid", "spec.clusterIPs[0]",
                          "Invalid value: " + GoStrings(ips) + ": may not change once set")});
  }
  spec["clusterIP"] = cur_ip;
  spec["clusterIPs"] = Json::array({cur_ip});
  for (const char* f : {"ipFamilies", "ipFamilyPolicy"}) {
    if (!spec.contains(f) && cur_spec.contains(f)) spec[f] = cur_spec[f];
  }
  return true;
}

void ClusterIpAllocator::Release(const std::string& ip) {
  auto address = ParseIpv4(ip);
  if (!address) return;
  std::lock_guard<std::mutex> lock(mu_);
  used_.erase(*address);
}

void ClusterIpAllocator::Release(const Json& service) {
  if (!service.contains("spec") || !service["spec"].is_object()) return;
  Release(StringAt(service["spec"], "clusterIP"));
}

void ClusterIpAllocator::Restore(const Json& service) {
  if (!service.contains("spec") || !service["spec"].is_object()) return;
  auto address = ParseIpv4(StringAt(service["spec"], "clusterIP"));
  if (!address || !Usable(*address)) return;
  std::lock_guard<std::mutex> lock(mu_);
  used_.insert(*address);
  if (*address >= next_) next_ = *address + 1;
}

bool ClusterIpAllocator::IsAllocatedForTest(const std::string& ip) const {
  auto address = ParseIpv4(ip);
  std::lock_guard<std::mutex> lock(mu_);
  return address && used_.count(*address) > 0;
}

}  // namespace trimtab::cluster
