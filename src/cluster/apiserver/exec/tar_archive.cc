#include "cluster/apiserver/exec/tar_archive.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

namespace trimtab::cluster::exec {
namespace {

constexpr size_t kBlock = 512;

// `value` in octal, zero padded, in a field of `width` bytes ending with NUL.
void PutOctal(char* field, size_t width, uint64_t value) {
  std::string digits(width - 1, '0');
  for (size_t i = width - 1; i-- > 0 && value > 0;) {
    digits[i] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
  std::memcpy(field, digits.data(), width - 1);
  field[width - 1] = '\0';
}

void PutString(char* field, size_t width, std::string_view s) {
  std::memcpy(field, s.data(), std::min(width, s.size()));
}

std::string Header(std::string_view name, std::string_view prefix, char type, uint32_t mode,
                   uint64_t size, int64_t mtime) {
  std::string h(kBlock, '\0');
  char* b = h.data();
  PutString(b, 100, name);
  PutOctal(b + 100, 8, mode & 07777);
  PutOctal(b + 108, 8, 0);
  PutOctal(b + 116, 8, 0);
  PutOctal(b + 124, 12, size);
  PutOctal(b + 136, 12, static_cast<uint64_t>(std::max<int64_t>(mtime, 0)));
  b[156] = type;
  std::memcpy(b + 257, "ustar\0" "00", 8);
  PutString(b + 265, 32, "root");
  PutString(b + 297, 32, "root");
  PutString(b + 345, 155, prefix);
  std::memset(b + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  char chk[8];
  std::snprintf(chk, sizeof chk, "%06o", sum & 0777777);
  std::memcpy(b + 148, chk, 6);
  b[154] = '\0';
  b[155] = ' ';
  return h;
}

void Pad(std::string* out) {
  if (out->size() % kBlock) out->append(kBlock - out->size() % kBlock, '\0');
}

// One PAX record "<len> path=<value>\n" (the length counts itself).
std::string PaxRecord(std::string_view key, std::string_view value) {
  const size_t rest = key.size() + value.size() + 3;  // ' ', '=', '\n'
  size_t len = rest + 1;
  while (std::to_string(len).size() + rest != len) len = std::to_string(len).size() + rest;
  return std::to_string(len) + " " + std::string(key) + "=" + std::string(value) + "\n";
}

StatusOr<uint64_t> ParseOctal(std::string_view field, const std::string& what) {
  uint64_t v = 0;
  size_t i = 0;
  while (i < field.size() && (field[i] == ' ' || field[i] == '\0')) ++i;
  if (i < field.size() && (static_cast<unsigned char>(field[i]) & 0x80)) {
    return InvalidArgumentError("tar: " + what + ": base-256 numbers are not supported");
  }
  for (; i < field.size() && field[i] >= '0' && field[i] <= '7'; ++i) v = v * 8 + (field[i] - '0');
  return v;
}

std::string CString(std::string_view field) {
  const size_t end = field.find('\0');
  return std::string(field.substr(0, end));
}

}  // namespace

std::string WriteTar(const std::vector<TarEntry>& entries) {
  std::string out;
  for (const TarEntry& e : entries) {
    std::string name = e.name;
    if (e.directory && !name.empty() && name.back() != '/') name += '/';
    std::string prefix;
    if (name.size() > 100) {
      // Split at a '/' so that the name part fits in 100 bytes and the prefix in 155.
      size_t cut = std::string::npos;
      for (size_t i = name.size() > 101 ? name.size() - 101 : 0; i < name.size() && i <= 155; ++i) {
        if (name[i] == '/') {
          cut = i;
          break;
        }
      }
      if (cut != std::string::npos && name.size() - cut - 1 <= 100 && cut > 0) {
        prefix = name.substr(0, cut);
        name = name.substr(cut + 1);
      } else {
        const std::string pax = PaxRecord("path", e.name + (e.directory ? "/" : ""));
        out += Header("PaxHeaders/entry", "", 'x', 0644, pax.size(), e.mtime);
        out += pax;
        Pad(&out);
        name = name.substr(name.size() - 100);
      }
    }
    out += Header(name, prefix, e.directory ? '5' : '0', e.mode, e.directory ? 0 : e.data.size(),
                  e.mtime);
    if (!e.directory) {
      out += e.data;
      Pad(&out);
    }
  }
  out.append(2 * kBlock, '\0');
  return out;
}

StatusOr<std::vector<TarEntry>> ReadTar(std::string_view archive) {
  std::vector<TarEntry> entries;
  std::string long_name;  // from a PAX 'x' path or a GNU 'L' entry, for the next entry
  uint64_t pax_size = 0;
  bool has_pax_size = false;
  size_t pos = 0;
  while (pos + kBlock <= archive.size()) {
    std::string_view h = archive.substr(pos, kBlock);
    if (h.find_first_not_of('\0') == std::string_view::npos) break;  // end of the archive
    const std::string raw_name = CString(h.substr(0, 100));
    const std::string what = "entry \"" + raw_name + "\"";
    TRIMTAB_ASSIGN_OR_RETURN(uint64_t checksum, ParseOctal(h.substr(148, 8), what + " checksum"));
    unsigned sum = 0;
    for (size_t i = 0; i < kBlock; ++i) {
      sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    }
    if (sum != checksum) return InvalidArgumentError("tar: " + what + ": bad header checksum");
    TRIMTAB_ASSIGN_OR_RETURN(uint64_t size, ParseOctal(h.substr(124, 12), what + " size"));
    if (has_pax_size) size = pax_size;
    TRIMTAB_ASSIGN_OR_RETURN(uint64_t mode, ParseOctal(h.substr(100, 8), what + " mode"));
    TRIMTAB_ASSIGN_OR_RETURN(uint64_t mtime, ParseOctal(h.substr(136, 12), what + " mtime"));
    const char type = h[156];
    pos += kBlock;
    if (size > archive.size() - pos) return InvalidArgumentError("tar: " + what + ": truncated");
    std::string_view data = archive.substr(pos, size);
    pos += (size + kBlock - 1) / kBlock * kBlock;
    if (type == 'x' || type == 'g') {
      if (type == 'g') continue;
      // Records "<len> key=value\n".
      size_t i = 0;
      while (i < data.size()) {
        const size_t space = data.find(' ', i);
        if (space == std::string_view::npos) break;
        const size_t len = std::strtoul(std::string(data.substr(i, space - i)).c_str(), nullptr, 10);
        if (len == 0 || i + len > data.size()) return InvalidArgumentError("tar: bad PAX record");
        std::string_view rec = data.substr(space + 1, i + len - space - 2);
        const size_t eq = rec.find('=');
        if (eq != std::string_view::npos) {
          if (rec.substr(0, eq) == "path") long_name = std::string(rec.substr(eq + 1));
          if (rec.substr(0, eq) == "size") {
            pax_size = std::strtoull(std::string(rec.substr(eq + 1)).c_str(), nullptr, 10);
            has_pax_size = true;
          }
        }
        i += len;
      }
      continue;
    }
    if (type == 'L') {
      long_name = CString(data);
      continue;
    }
    TarEntry e;
    if (!long_name.empty()) {
      e.name = long_name;
    } else {
      const std::string prefix = CString(h.substr(345, 155));
      e.name = prefix.empty() ? raw_name : prefix + "/" + raw_name;
    }
    long_name.clear();
    has_pax_size = false;
    e.mode = static_cast<uint32_t>(mode & 07777);
    e.mtime = static_cast<int64_t>(mtime);
    if (type == '5') {
      e.directory = true;
    } else if (type == '0' || type == '\0' || type == '7') {
      e.data = std::string(data);
    } else {
      return InvalidArgumentError("tar: entry \"" + e.name + "\": type '" + std::string(1, type) +
                                  "' (links, devices, FIFOs) is not supported");
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace trimtab::cluster::exec
