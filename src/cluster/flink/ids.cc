#include "cluster/flink/ids.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace trimtab::sim::flink {

namespace {

constexpr char kHex[] = "0123456789abcdef";

uint64_t Fnv1a(std::string_view s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

void AppendHex(uint64_t v, int digits, std::string* out) {
  for (int i = digits - 1; i >= 0; --i) out->push_back(kHex[(v >> (4 * i)) & 0xF]);
}

}  // namespace

bool IsHexId(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string StableHexId(std::string_view a, std::string_view b) {
  // Two independent 64-bit digests of "a\0b", mixed.
  uint64_t h1 = Fnv1a(a, 0xcbf29ce484222325ULL);
  h1 = Fnv1a(std::string_view("\0", 1), h1);
  h1 = Fnv1a(b, h1);
  const uint64_t hi = Mix64(h1);
  const uint64_t lo = Mix64(h1 ^ 0x5bd1e9955bd1e995ULL ^ (static_cast<uint64_t>(a.size()) << 32 | b.size()));
  std::string out;
  out.reserve(32);
  AppendHex(hi, 16, &out);
  AppendHex(lo, 16, &out);
  return out;
}

std::string CheckpointKey(int64_t checkpoint_id) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "checkpointID-%019lld", static_cast<long long>(checkpoint_id));
  return buf;
}

std::string IdGenerator::Hex(int digits) {
  std::string out;
  out.reserve(static_cast<size_t>(digits));
  while (static_cast<int>(out.size()) < digits) {
    const int n = std::min(16, digits - static_cast<int>(out.size()));
    AppendHex(rng_.Next(), n, &out);
  }
  return out;
}

std::string IdGenerator::HexId() { return Hex(32); }

std::string IdGenerator::Uuid() {
  std::string h = Hex(32);
  h[12] = '4';  // version 4
  h[16] = kHex[8 + (h[16] % 4)];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
         h.substr(20, 12);
}

}  // namespace trimtab::sim::flink
