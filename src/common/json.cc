#include "common/json.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace trimtab {

namespace {

// Builds the document from nlohmann's iterative SAX parser, so that neither depth nor size costs
// stack, and checks depth and repeated keys on the way.
class BoundedDomBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit BoundedDomBuilder(const JsonParseOptions& options) : options_(options) {}

  bool null() { return Put(Json(nullptr)); }
  bool boolean(bool v) { return Put(Json(v)); }
  bool number_integer(number_integer_t v) { return Put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return Put(Json(v)); }
  bool number_float(number_float_t v, const string_t& text) {
    if (!std::isfinite(v)) return Fail("number " + text + " is out of range");
    return Put(Json(v));
  }
  bool string(string_t& v) { return Put(Json(std::move(v))); }
  bool binary(binary_t&) { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return Open(Json::object()); }
  bool start_array(std::size_t) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(string_t& k) {
    Json* top = stack_.back();
    if (options_.duplicate_fields != nullptr && top->contains(k)) {
      options_.duplicate_fields->push_back(JoinPath(CurrentPath(), k));
    }
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    if (error_.empty()) error_ = ex.what();
    return false;
  }

  Json& root() { return root_; }
  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }
  // Places a scalar or a new container; returns the slot it went to.
  Json* Place(Json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json* top = stack_.back();
    if (top->is_array()) {
      top->push_back(std::move(value));
      return &top->back();
    }
    Json& slot = (*top)[key_];
    slot = std::move(value);
    return &slot;
  }
  bool Put(Json value) {
    Place(std::move(value));
    return true;
  }
  bool Open(Json container) {
    if (static_cast<int>(stack_.size()) >= options_.max_depth) {
      return Fail("nesting depth exceeds the limit of " + std::to_string(options_.max_depth));
    }
    std::string segment;
    if (!stack_.empty()) {
      segment = stack_.back()->is_array() ? "[" + std::to_string(stack_.back()->size()) + "]" : key_;
    }
    stack_.push_back(Place(std::move(container)));
    segments_.push_back(std::move(segment));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    segments_.pop_back();
    return true;
  }
  std::string CurrentPath() const {
    std::string path;
    for (size_t i = 1; i < segments_.size(); ++i) {
      if (segments_[i].starts_with("[") || path.empty()) {
        path += segments_[i];
      } else {
        path += "." + segments_[i];
      }
    }
    return path;
  }

  const JsonParseOptions& options_;
  Json root_;
  std::vector<Json*> stack_;            // open containers, innermost last
  std::vector<std::string> segments_;   // the key or [index] each open container sits under
  std::string key_;
  std::string error_;
};

}  // namespace

StatusOr<Json> ParseJson(std::string_view text, std::string_view what,
                         const JsonParseOptions& options) {
  BoundedDomBuilder builder(options);
  bool ok = false;
  try {
    ok = Json::sax_parse(text, &builder, Json::input_format_t::json, /*strict=*/true);
  } catch (const Json::exception& e) {  // not expected from sax_parse; never let one escape
    return InvalidArgumentError(std::string(what) + ": invalid JSON: " + e.what());
  }
  if (!ok) {
    // The parser quotes the last token read, which may be the very bytes that are not UTF-8.
    std::string why = builder.error().empty() ? "parse error" : builder.error();
    if (!IsValidUtf8(why)) {
      std::string clean;
      for (unsigned char c : why) {
        if (c < 0x80) {
          clean.push_back(static_cast<char>(c));
        } else {
          static constexpr char kHex[] = "0123456789ABCDEF";
          clean += "\\x";
          clean.push_back(kHex[c >> 4]);
          clean.push_back(kHex[c & 15]);
        }
      }
      why = std::move(clean);
    }
    return InvalidArgumentError(std::string(what) + ": invalid JSON: " + why);
  }
  return std::move(builder.root());
}

bool IsValidUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

namespace {

bool IsPlainNull(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<Json> PlainScalarToJson(const std::string& s) {
  if (IsPlainNull(s)) return Json(nullptr);
  if (s == "true" || s == "True" || s == "TRUE") return Json(true);
  if (s == "false" || s == "False" || s == "FALSE") return Json(false);
  // Integers (YAML 1.2 core schema: [-+]?[0-9]+, 0o, 0x).
  {
    size_t i = 0;
    if (s[0] == '-' || s[0] == '+') i = 1;
    if (i < s.size() && s.find_first_not_of("0123456789", i) == std::string::npos) {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (errno == 0 && end == s.c_str() + s.size()) return Json(static_cast<int64_t>(v));
    }
  }
  // Floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, .inf, .nan
  {
    size_t i = 0;
    if (s[0] == '-' || s[0] == '+') i = 1;
    size_t digits = 0;
    bool dot = false;
    size_t j = i;
    for (; j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.'); ++j) {
      if (s[j] == '.') {
        if (dot) break;
        dot = true;
      } else {
        ++digits;
      }
    }
    bool ok = digits > 0;
    if (ok && j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
      ++j;
      if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
      size_t exp_digits = 0;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++exp_digits;
      ok = exp_digits > 0;
    }
    if (ok && j == s.size() && (dot || s.find_first_of("eE") != std::string::npos)) {
      return Json(std::strtod(s.c_str(), nullptr));
    }
  }
  return std::nullopt;
}

// Limits of one YAML conversion: depth, and a budget of values so that aliases cannot expand a
// small text into a huge document (or loop: yaml-cpp lets an anchor refer to itself).
// yaml-cpp's parser stops at 2,000 levels; only aliases can build deeper documents (an anchor
// that contains itself loops forever), and this conversion's frames are large (under ASan
// 10,000 of them overflowed the stack: found by fuzz_yaml), so it stops there too.
constexpr int kMaxYamlDepth = 2000;

struct YamlBudget {
  int64_t values_left;
};

// `path` is the node's field path, extended and restored in place so that deep documents cost
// linear time (a path string per level made a 10,000-level alias loop quadratic).
StatusOr<Json> YamlToJson(const YAML::Node& node, std::string* path, int depth, YamlBudget* budget) {
  const auto where = [&] { return path->empty() ? std::string("document") : *path; };
  if (--budget->values_left < 0) {
    return InvalidArgumentError(where() + ": the document expands to too many values (excessive aliasing)");
  }
  if (depth > kMaxYamlDepth) {
    return InvalidArgumentError(where() + ": nesting depth exceeds the limit of " +
                                std::to_string(kMaxYamlDepth));
  }
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return Json(nullptr);
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (!IsValidUtf8(s)) return InvalidArgumentError(where() + ": invalid UTF-8 in a string");
      if (node.Tag() == "?") {  // plain (unquoted) scalar: resolve its type
        if (auto v = PlainScalarToJson(s)) {
          if (v->is_number_float() && !std::isfinite(v->get<double>())) {
            return InvalidArgumentError(where() + ": number " + s + " is out of range");
          }
          return *v;
        }
      }
      return Json(s);
    }
    case YAML::NodeType::Sequence: {
      Json arr = Json::array();
      size_t i = 0;
      const size_t mark = path->size();
      for (const auto& item : node) {
        path->append("[" + std::to_string(i) + "]");
        auto v = YamlToJson(item, path, depth + 1, budget);
        if (!v.ok()) return v;
        path->resize(mark);
        arr.push_back(std::move(v).value());
        ++i;
      }
      return arr;
    }
    case YAML::NodeType::Map: {
      Json obj = Json::object();
      const size_t mark = path->size();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return InvalidArgumentError(*path + ": mapping keys must be scalars");
        }
        const std::string key = kv.first.Scalar();
        if (!IsValidUtf8(key)) return InvalidArgumentError(*path + ": invalid UTF-8 in a key");
        if (!path->empty()) path->push_back('.');
        path->append(key);
        if (obj.contains(key)) return InvalidArgumentError(*path + ": duplicate key");
        auto v = YamlToJson(kv.second, path, depth + 1, budget);
        if (!v.ok()) return v;
        path->resize(mark);
        obj[key] = std::move(v).value();
      }
      return obj;
    }
  }
  return Json(nullptr);
}

// Without aliases a document has fewer values than bytes; aliases may double that (and small
// documents get room for a few merged anchors).
YamlBudget BudgetFor(std::string_view text) {
  return YamlBudget{.values_left = 2 * static_cast<int64_t>(text.size()) + 10000};
}

// The YAML writer. Block style as kubectl prints it: two-space indents, sequence items as
// "- ", "{}" and "[]" for empty collections. A string is written plain only when every YAML
// reader (1.1 or 1.2) reads it back as that same string; otherwise it is double-quoted, with
// escapes for the characters YAML may not carry raw (C0 and C1 controls, DEL, NEL, the line and
// paragraph separators, the byte-order mark, U+FFFE and U+FFFF). yaml-cpp's own emitter is not
// used: it writes U+FFFE and U+FFFF as U+FFFD.

// Words a YAML 1.1 reader (kubectl's) takes for booleans or null, in any case.
bool IsYaml11Word(const std::string& s) {
  static constexpr std::string_view kWords[] = {"y", "n", "yes", "no", "on", "off", "true",
                                                "false", "null", "~"};
  if (s.size() > 5) return false;
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(std::begin(kWords), std::end(kWords), lower) != std::end(kWords);
}

// The length of the UTF-8 sequence that starts with byte `lead`.
size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  return 4;
}

// "\\x" and two hex digits: YAML's escape of a code point below U+0100.
std::string HexEscape(unsigned char code_point) {
  static constexpr char kHex[] = "0123456789abcdef";
  return {'\\', 'x', kHex[code_point >> 4], kHex[code_point & 0xf]};
}

// The escape for the character at the start of `c` (a whole UTF-8 sequence), or "" when it is
// written raw inside double quotes.
std::string YamlEscape(std::string_view c) {
  const auto b0 = static_cast<unsigned char>(c[0]);
  switch (b0) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    default: break;
  }
  if (b0 < 0x20 || b0 == 0x7f) return HexEscape(b0);
  if (c.size() == 2 && b0 == 0xc2 && static_cast<unsigned char>(c[1]) <= 0x9f) {
    return HexEscape(static_cast<unsigned char>(c[1]));  // U+0080..U+009F
  }
  if (c == "\xe2\x80\xa8") return "\\u2028";
  if (c == "\xe2\x80\xa9") return "\\u2029";
  if (c == "\xef\xbb\xbf") return "\\ufeff";
  if (c == "\xef\xbf\xbe") return "\\ufffe";
  if (c == "\xef\xbf\xbf") return "\\uffff";
  return "";
}

// Whether `s` (valid UTF-8) may be written as a plain scalar: it starts with a letter, '_' or
// '/', holds only letters, digits, spaces and "_./-+=()@~$^,;'" or non-ASCII characters that
// need no escape, does not end with a space and is not a word another type would claim.
bool IsPlainSafe(const std::string& s) {
  if (s.empty() || s.back() == ' ') return false;
  const auto first = static_cast<unsigned char>(s[0]);
  if (!(std::isalpha(first) || first == '_' || first == '/' || first >= 0x80)) return false;
  for (size_t i = 0; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    const size_t n = std::min(Utf8Length(u), s.size() - i);
    if (u >= 0x80) {
      if (!YamlEscape(std::string_view(s.data() + i, n)).empty()) return false;
    } else if (!std::isalnum(u) &&
               std::string_view(" _./-+=()@~$^,;'").find(s[i]) == std::string_view::npos) {
      return false;
    }
    i += n;
  }
  return !IsYaml11Word(s) && !PlainScalarToJson(s).has_value();
}

void WriteDoubleQuoted(const std::string& s, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const size_t n = std::min(Utf8Length(static_cast<unsigned char>(s[i])), s.size() - i);
    const std::string_view c(s.data() + i, n);
    const std::string escape = YamlEscape(c);
    out->append(escape.empty() ? c : std::string_view(escape));
    i += n;
  }
  out->push_back('"');
}

void WriteString(const std::string& s, std::string* out) {
  if (IsPlainSafe(s)) {
    out->append(s);
  } else {
    WriteDoubleQuoted(s, out);
  }
}

// A scalar or an empty collection, on the current line.
void WriteInline(const Json& v, std::string* out) {
  switch (v.type()) {
    case Json::value_t::object: out->append("{}"); break;
    case Json::value_t::array: out->append("[]"); break;
    case Json::value_t::string: WriteString(v.get_ref<const std::string&>(), out); break;
    case Json::value_t::boolean: out->append(v.get<bool>() ? "true" : "false"); break;
    case Json::value_t::null:
    case Json::value_t::discarded: out->append("null"); break;
    default: out->append(v.dump()); break;
  }
}

// YAML's limit on the length of an implicit key (one written as "key: value").
constexpr size_t kMaxImplicitKeyLength = 1024;

bool IsBlock(const Json& v) { return (v.is_object() || v.is_array()) && !v.empty(); }

// Writes a non-empty collection `v` in block style at `indent` spaces. Its first line goes on
// the current line when `inline_first` (a map as a sequence item: "- key: value").
void WriteBlock(const Json& v, size_t indent, bool inline_first, std::string* out) {
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && inline_first)) out->append(indent, ' ');
    first = false;
    if (v.is_object()) {
      std::string key;
      WriteString(it.key(), &key);
      if (key.size() > kMaxImplicitKeyLength) {
        // YAML limits implicit keys to 1024 characters; a longer one is an explicit "? key".
        out->append("? ").append(key).push_back('\n');
        out->append(indent, ' ');
      } else {
        out->append(key);
      }
      out->push_back(':');
      if (IsBlock(*it)) {
        out->push_back('\n');
        WriteBlock(*it, indent + 2, false, out);
        continue;
      }
      out->push_back(' ');
    } else {
      out->append("- ");
      if (IsBlock(*it)) {
        if (it->is_object()) {
          WriteBlock(*it, indent + 2, true, out);
        } else {
          out->push_back('\n');
          WriteBlock(*it, indent + 2, false, out);
        }
        continue;
      }
    }
    WriteInline(*it, out);
    out->push_back('\n');
  }
}

}  // namespace

StatusOr<Json> ParseYaml(std::string_view text, std::string_view what) {
  try {
    YAML::Node node = YAML::Load(std::string(text));
    YamlBudget budget = BudgetFor(text);
    std::string path;
    auto result = YamlToJson(node, &path, 0, &budget);
    if (!result.ok()) return result.status().WithContext(what);
    return result;
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(what) + ": invalid YAML: " + e.what());
  } catch (const std::exception& e) {  // yaml-cpp may throw others (bad conversions, limits)
    return InvalidArgumentError(std::string(what) + ": invalid YAML: " + e.what());
  }
}

StatusOr<std::vector<Json>> ParseYamlStream(std::string_view text, std::string_view what) {
  try {
    std::vector<Json> docs;
    YamlBudget budget = BudgetFor(text);
    // Not YAML::LoadAll: on some malformed flow collections (", {\xff\x16\xca: c}]...", found by
    // fuzz_yaml) yaml-cpp 0.7's document loop never advances and never ends. A line that starts
    // with "---" or "..." followed by a blank or the end of the line is a document boundary
    // wherever it appears (YAML 1.2, c-forbidden), so the stream is cut there and each piece
    // loaded on its own.
    std::vector<std::string_view> pieces;
    size_t start = 0;
    for (size_t line = 0; line < text.size();) {
      const size_t eol = std::min(text.find('\n', line), text.size());
      const std::string_view l = text.substr(line, eol - line);
      const bool marker = (l.starts_with("---") || l.starts_with("...")) &&
                          (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
      if (marker && line > start) {
        pieces.push_back(text.substr(start, line - start));
        start = line;
      }
      line = eol + 1;
    }
    pieces.push_back(text.substr(start));
    for (std::string_view piece : pieces) {
      if (piece.starts_with("...")) piece.remove_prefix(3);  // an end marker ends the previous one
      const YAML::Node node = YAML::Load(std::string(piece));
      if (node.IsNull() || !node.IsDefined()) continue;
      std::string path;
      auto result = YamlToJson(node, &path, 0, &budget);
      if (!result.ok()) return result.status().WithContext(what);
      docs.push_back(std::move(result).value());
    }
    return docs;
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(what) + ": invalid YAML: " + e.what());
  } catch (const std::exception& e) {  // yaml-cpp may throw others (bad conversions, limits)
    return InvalidArgumentError(std::string(what) + ": invalid YAML: " + e.what());
  }
}

std::string ToYaml(const Json& value) {
  std::string out;
  if (IsBlock(value)) {
    WriteBlock(value, 0, false, &out);
  } else {
    WriteInline(value, &out);
    out.push_back('\n');
  }
  return out;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return UnavailableError("error reading " + path);
  return ss.str();
}

std::string JoinPath(std::string_view parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  std::string out(parent);
  out += '.';
  out += field;
  return out;
}

std::string JoinPath(std::string_view parent, size_t index) {
  std::string out(parent);
  out += '[';
  out += std::to_string(index);
  out += ']';
  return out;
}

std::string_view JsonTypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "object";
    case Json::value_t::array: return "array";
    case Json::value_t::string: return "string";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "number";
    default: return "invalid";
  }
}

JsonReader::JsonReader(const Json& object, std::string path)
    : object_(object), path_(std::move(path)) {}

Status JsonReader::ExpectObject() const {
  if (!object_.is_object()) {
    return InvalidArgumentError((path_.empty() ? std::string("document") : path_) +
                                ": expected an object, got " + std::string(JsonTypeName(object_)));
  }
  return Status::Ok();
}

bool JsonReader::Has(std::string_view field) const {
  return object_.is_object() && object_.contains(field) && !object_.at(std::string(field)).is_null();
}

const Json* JsonReader::Get(std::string_view field) {
  seen_.insert(std::string(field));
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

namespace {
Status WrongType(const std::string& path, std::string_view want, const Json& got) {
  return InvalidArgumentError(path + ": expected " + std::string(want) + ", got " +
                              std::string(JsonTypeName(got)));
}
}  // namespace

Status JsonReader::RequiredString(std::string_view field, std::string* out) {
  if (!Has(field)) return InvalidArgumentError(FieldPath(field) + ": required field is missing");
  return OptionalString(field, out);
}

Status JsonReader::OptionalString(std::string_view field, std::string* out) {
  const Json* v = Get(field);
  if (!v) return Status::Ok();
  if (!v->is_string()) return WrongType(FieldPath(field), "string", *v);
  *out = v->get<std::string>();
  return Status::Ok();
}

Status JsonReader::RequiredInt(std::string_view field, int64_t* out) {
  if (!Has(field)) return InvalidArgumentError(FieldPath(field) + ": required field is missing");
  return OptionalInt(field, out);
}

Status JsonReader::OptionalInt(std::string_view field, int64_t* out) {
  const Json* v = Get(field);
  if (!v) return Status::Ok();
  if (v->is_number_integer()) {
    *out = v->get<int64_t>();
    return Status::Ok();
  }
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      *out = static_cast<int64_t>(d);
      return Status::Ok();
    }
    return InvalidArgumentError(FieldPath(field) + ": expected an integer, got " + v->dump());
  }
  return WrongType(FieldPath(field), "integer", *v);
}

Status JsonReader::OptionalInt(std::string_view field, std::optional<int64_t>* out) {
  if (!Has(field)) {
    Get(field);
    return Status::Ok();
  }
  int64_t value = 0;
  TRIMTAB_RETURN_IF_ERROR(OptionalInt(field, &value));
  *out = value;
  return Status::Ok();
}

Status JsonReader::RequiredDouble(std::string_view field, double* out) {
  if (!Has(field)) return InvalidArgumentError(FieldPath(field) + ": required field is missing");
  return OptionalDouble(field, out);
}

Status JsonReader::OptionalDouble(std::string_view field, double* out) {
  const Json* v = Get(field);
  if (!v) return Status::Ok();
  if (!v->is_number()) return WrongType(FieldPath(field), "number", *v);
  *out = v->get<double>();
  return Status::Ok();
}

Status JsonReader::OptionalDouble(std::string_view field, std::optional<double>* out) {
  if (!Has(field)) {
    Get(field);
    return Status::Ok();
  }
  double value = 0;
  TRIMTAB_RETURN_IF_ERROR(OptionalDouble(field, &value));
  *out = value;
  return Status::Ok();
}

Status JsonReader::OptionalBool(std::string_view field, bool* out) {
  const Json* v = Get(field);
  if (!v) return Status::Ok();
  if (!v->is_boolean()) return WrongType(FieldPath(field), "boolean", *v);
  *out = v->get<bool>();
  return Status::Ok();
}

Status JsonReader::OptionalEnum(std::string_view field,
                                const std::vector<std::string_view>& allowed, std::string* out) {
  std::string value;
  const bool present = Has(field);
  TRIMTAB_RETURN_IF_ERROR(OptionalString(field, &value));
  if (!present) return Status::Ok();
  for (std::string_view a : allowed) {
    if (a == value) {
      *out = value;
      return Status::Ok();
    }
  }
  std::string list;
  for (std::string_view a : allowed) {
    if (!list.empty()) list += ", ";
    list += '"';
    list += a;
    list += '"';
  }
  return InvalidArgumentError(FieldPath(field) + ": Unsupported value: \"" + value +
                              "\": supported values: " + list);
}

Status JsonReader::NoUnknownFields() const {
  if (!object_.is_object()) return Status::Ok();
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (!seen_.contains(it.key())) {
      return InvalidArgumentError(FieldPath(it.key()) + ": unknown field");
    }
  }
  return Status::Ok();
}

}  // namespace trimtab
