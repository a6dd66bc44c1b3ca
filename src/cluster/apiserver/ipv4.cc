#include "cluster/apiserver/ipv4.h"

namespace trimtab::cluster {

std::optional<uint32_t> ParseIpv4(std::string_view text) {
  uint32_t out = 0;
  int octets = 0;
  size_t i = 0;
  while (octets < 4) {
    size_t start = i;
    uint32_t value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 3) {
      value = value * 10 + static_cast<uint32_t>(text[i] - '0');
      ++i;
    }
    if (i == start || value > 255) return std::nullopt;
    // A leading zero ("010") is ambiguous (octal in some parsers); Go's net.ParseIP rejects it.
    if (i - start > 1 && text[start] == '0') return std::nullopt;
    out = (out << 8) | value;
    ++octets;
    if (octets < 4) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return out;
}

std::string FormatIpv4(uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xff) + "." +
         std::to_string((address >> 8) & 0xff) + "." + std::to_string(address & 0xff);
}

Ipv4Range::Ipv4Range(uint32_t network, int prefix_length)
    : network_(network), prefix_length_(prefix_length) {}

StatusOr<Ipv4Range> Ipv4Range::Parse(std::string_view cidr) {
  size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) {
    return InvalidArgumentError("\"" + std::string(cidr) +
                                "\" is not a CIDR range (expected a.b.c.d/len)");
  }
  auto address = ParseIpv4(cidr.substr(0, slash));
  std::string_view len_text = cidr.substr(slash + 1);
  int len = 0;
  bool len_ok = !len_text.empty() && len_text.size() <= 2;
  for (char c : len_text) {
    if (c < '0' || c > '9') len_ok = false;
    len = len * 10 + (c - '0');
  }
  if (!address || !len_ok) {
    return InvalidArgumentError("\"" + std::string(cidr) +
                                "\" is not a CIDR range (expected a.b.c.d/len)");
  }
  if (len < 8 || len > 30) {
    return InvalidArgumentError("\"" + std::string(cidr) +
                                "\": the prefix length must be between 8 and 30");
  }
  uint32_t mask = len == 0 ? 0 : ~uint32_t{0} << (32 - len);
  if ((*address & ~mask) != 0) {
    return InvalidArgumentError("\"" + std::string(cidr) + "\" has host bits set (did you mean " +
                                FormatIpv4(*address & mask) + "/" + std::to_string(len) + "?)");
  }
  return Ipv4Range(*address, len);
}

std::optional<Ipv4Range> Ipv4Range::Subnet(int prefix_length, uint64_t index) const {
  if (prefix_length < prefix_length_ || prefix_length > 32) return std::nullopt;
  uint64_t count = uint64_t{1} << (prefix_length - prefix_length_);
  if (index >= count) return std::nullopt;
  uint64_t step = uint64_t{1} << (32 - prefix_length);
  return Ipv4Range(network_ + static_cast<uint32_t>(index * step), prefix_length);
}

std::string Ipv4Range::String() const {
  return FormatIpv4(network_) + "/" + std::to_string(prefix_length_);
}

}  // namespace trimtab::cluster
