#include "common/label_selector.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace trimtab {
namespace {

constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kDns1123SubdomainMaxLength = 253;

constexpr std::string_view kQualifiedNameFmt =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], non-empty.
bool IsQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsDns1123Label(std::string_view s) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return lower_alnum(c) || c == '-'; });
}

bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > kDns1123SubdomainMaxLength) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    if (!IsDns1123Label(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  const char* begin = s.data();
  if (*begin == '+') ++begin;  // strconv.ParseInt accepts a leading sign
  auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::string_view OpSymbol(SelectorOp op) {
  switch (op) {
    case SelectorOp::kEquals: return "=";
    case SelectorOp::kDoubleEquals: return "==";
    case SelectorOp::kNotEquals: return "!=";
    case SelectorOp::kIn: return " in ";
    case SelectorOp::kNotIn: return " notin ";
    case SelectorOp::kGreaterThan: return ">";
    case SelectorOp::kLessThan: return "<";
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist: return "";
  }
  return "";
}

// ---- Lexer for the label selector string form (apimachinery labels.Lexer) ----

enum class Token {
  kEnd,
  kIdentifier,
  kComma,
  kOpenPar,
  kClosedPar,
  kEquals,
  kDoubleEquals,
  kNotEquals,
  kDoesNotExist,  // "!"
  kGreaterThan,
  kLessThan,
  kIn,
  kNotIn,
  kError,
};

struct Lexeme {
  Token token;
  std::string text;
};

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::vector<Lexeme> Lex(std::string_view s) {
  std::vector<Lexeme> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && IsWhitespace(s[i])) ++i;
    if (i >= s.size()) {
      out.push_back({Token::kEnd, ""});
      return out;
    }
    const char c = s[i];
    if (IsSpecial(c)) {
      // Longest match among the operator spellings.
      const std::string_view two = s.substr(i, 2);
      if (two == "==") {
        out.push_back({Token::kDoubleEquals, "=="});
        i += 2;
      } else if (two == "!=") {
        out.push_back({Token::kNotEquals, "!="});
        i += 2;
      } else {
        Token t = Token::kError;
        switch (c) {
          case '=': t = Token::kEquals; break;
          case '!': t = Token::kDoesNotExist; break;
          case '(': t = Token::kOpenPar; break;
          case ')': t = Token::kClosedPar; break;
          case ',': t = Token::kComma; break;
          case '>': t = Token::kGreaterThan; break;
          case '<': t = Token::kLessThan; break;
          default: break;
        }
        out.push_back({t, std::string(1, c)});
        ++i;
      }
      continue;
    }
    const size_t start = i;
    while (i < s.size() && !IsWhitespace(s[i]) && !IsSpecial(s[i])) ++i;
    std::string word(s.substr(start, i - start));
    Token t = Token::kIdentifier;
    if (word == "in") t = Token::kIn;
    if (word == "notin") t = Token::kNotIn;
    out.push_back({t, std::move(word)});
  }
}

// In "values" context the keywords are plain identifiers.
Token AsValue(Token t) { return (t == Token::kIn || t == Token::kNotIn) ? Token::kIdentifier : t; }

class LabelParser {
 public:
  explicit LabelParser(std::string_view text) : text_(text), items_(Lex(text)) {}

  StatusOr<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> reqs;
    while (true) {
      const Token t = AsValue(Peek().token);
      if (t == Token::kEnd) return reqs;
      if (t != Token::kIdentifier && t != Token::kDoesNotExist) {
        return Error("found '" + Peek().text + "', expected: !, identifier, or 'end of string'");
      }
      StatusOr<LabelRequirement> r = ParseRequirement();
      if (!r.ok()) return r.status();
      reqs.push_back(std::move(r).value());
      const Lexeme& next = Next();
      if (next.token == Token::kEnd) return reqs;
      if (next.token != Token::kComma) {
        return Error("found '" + next.text + "', expected: ',' or 'end of string'");
      }
      const Token after = AsValue(Peek().token);
      if (after != Token::kIdentifier && after != Token::kDoesNotExist) {
        return Error("found '" + Peek().text + "', expected: identifier after ','");
      }
    }
  }

 private:
  const Lexeme& Peek() const { return items_[pos_]; }
  const Lexeme& Next() {
    const Lexeme& l = items_[pos_];
    if (pos_ + 1 < items_.size()) ++pos_;
    return l;
  }
  Status Error(std::string what) const {
    return InvalidArgumentError("label selector \"" + std::string(text_) + "\": " + what);
  }

  StatusOr<LabelRequirement> ParseRequirement() {
    bool not_exist = false;
    Lexeme key = Next();
    if (key.token == Token::kDoesNotExist) {
      not_exist = true;
      key = Next();
    }
    if (AsValue(key.token) != Token::kIdentifier) {
      return Error("found '" + key.text + "', expected: identifier");
    }
    const Token look = Peek().token;
    if (look == Token::kEnd || look == Token::kComma) {
      return Wrap(MakeLabelRequirement(key.text,
                                       not_exist ? SelectorOp::kDoesNotExist : SelectorOp::kExists,
                                       {}));
    }
    if (not_exist) {
      return Error("found '" + Peek().text + "', expected: ',' or 'end of string' after !" +
                   key.text);
    }
    const Lexeme op = Next();
    SelectorOp sop;
    switch (op.token) {
      case Token::kIn: sop = SelectorOp::kIn; break;
      case Token::kNotIn: sop = SelectorOp::kNotIn; break;
      case Token::kEquals: sop = SelectorOp::kEquals; break;
      case Token::kDoubleEquals: sop = SelectorOp::kDoubleEquals; break;
      case Token::kNotEquals: sop = SelectorOp::kNotEquals; break;
      case Token::kGreaterThan: sop = SelectorOp::kGreaterThan; break;
      case Token::kLessThan: sop = SelectorOp::kLessThan; break;
      default:
        return Error("found '" + op.text + "', expected: '=', '!=', '==', 'in', 'notin', '>' or '<'");
    }
    std::vector<std::string> values;
    if (sop == SelectorOp::kIn || sop == SelectorOp::kNotIn) {
      TRIMTAB_RETURN_IF_ERROR(ParseSetValues(&values));
    } else {
      // Exact value: an identifier, or empty when the requirement ends here.
      const Token t = AsValue(Peek().token);
      if (t == Token::kEnd || t == Token::kComma) {
        values.emplace_back();
      } else if (t == Token::kIdentifier) {
        values.push_back(Next().text);
      } else {
        return Error("found '" + Peek().text + "', expected: identifier");
      }
    }
    return Wrap(MakeLabelRequirement(key.text, sop, std::move(values)));
  }

  // "(" [value {"," value}] ")" where values may be empty: "()" = {""}, "(a,)" = {"a",""}.
  Status ParseSetValues(std::vector<std::string>* values) {
    const Lexeme open = Next();
    if (open.token != Token::kOpenPar) return Error("found '" + open.text + "', expected: '('");
    if (Peek().token == Token::kClosedPar) {
      Next();
      values->emplace_back();
      return Status::Ok();
    }
    bool expect_value = true;
    while (true) {
      const Lexeme& l = Next();
      const Token t = AsValue(l.token);
      if (t == Token::kIdentifier) {
        if (!expect_value) return Error("found '" + l.text + "', expected: ',' or ')'");
        values->push_back(l.text);
        expect_value = false;
      } else if (t == Token::kComma) {
        if (expect_value) values->emplace_back();  // "(,a)"
        expect_value = true;
      } else if (t == Token::kClosedPar) {
        if (expect_value) values->emplace_back();  // "(a,)"
        return Status::Ok();
      } else {
        return Error("found '" + l.text + "', expected: ',', ')' or identifier");
      }
    }
  }

  StatusOr<LabelRequirement> Wrap(StatusOr<LabelRequirement> r) const {
    if (r.ok()) return r;
    return Error(r.status().message());
  }

  std::string_view text_;
  std::vector<Lexeme> items_;
  size_t pos_ = 0;
};

void SortRequirements(std::vector<LabelRequirement>* reqs) {
  std::stable_sort(reqs->begin(), reqs->end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) { return a.key < b.key; });
}

}  // namespace

std::string ValidateQualifiedName(std::string_view key) {
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      return "a qualified name " + std::string(kQualifiedNameFmt) +
             " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    }
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (prefix.size() > kDns1123SubdomainMaxLength) {
      return "prefix part must be no more than 253 characters";
    }
    if (!IsDns1123Subdomain(prefix)) {
      return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
             "characters, '-' or '.', and must start and end with an alphanumeric character "
             "(e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    }
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > kQualifiedNameMaxLength) return "name part must be no more than 63 characters";
  if (!IsQualifiedNamePart(name)) return "name part " + std::string(kQualifiedNameFmt);
  return "";
}

std::string ValidateLabelValue(std::string_view value) {
  if (value.size() > kLabelValueMaxLength) return "must be no more than 63 characters";
  if (!value.empty() && !IsQualifiedNamePart(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', "
           "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
           "or 'my_value',  or '12345', regex used for validation is "
           "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return "";
}

StatusOr<LabelRequirement> MakeLabelRequirement(std::string key, SelectorOp op,
                                                std::vector<std::string> values) {
  if (std::string err = ValidateQualifiedName(key); !err.empty()) {
    return InvalidArgumentError("key \"" + key + "\": " + err);
  }
  switch (op) {
    case SelectorOp::kIn:
    case SelectorOp::kNotIn:
      if (values.empty()) {
        return InvalidArgumentError("key \"" + key +
                                    "\": for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case SelectorOp::kEquals:
    case SelectorOp::kDoubleEquals:
    case SelectorOp::kNotEquals:
      if (values.size() != 1) {
        return InvalidArgumentError("key \"" + key +
                                    "\": exact-match compatibility requires one single value");
      }
      break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
      if (!values.empty()) {
        return InvalidArgumentError("key \"" + key +
                                    "\": values set must be empty for exists and does not exist");
      }
      break;
    case SelectorOp::kGreaterThan:
    case SelectorOp::kLessThan: {
      int64_t ignored = 0;
      if (values.size() != 1) {
        return InvalidArgumentError("key \"" + key +
                                    "\": for 'Gt', 'Lt' operators, exactly one value is required");
      }
      if (!ParseInt64(values[0], &ignored)) {
        return InvalidArgumentError("key \"" + key + "\": value \"" + values[0] +
                                    "\": for 'Gt', 'Lt' operators, the value must be an integer");
      }
      break;
    }
  }
  for (const std::string& v : values) {
    if (std::string err = ValidateLabelValue(v); !err.empty()) {
      return InvalidArgumentError("key \"" + key + "\": value \"" + v + "\": " + err);
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return LabelRequirement{.key = std::move(key), .op = op, .values = std::move(values)};
}

bool LabelRequirement::Matches(const LabelMap& labels) const {
  const auto it = labels.find(key);
  const bool has = it != labels.end();
  auto contains = [&](const std::string& v) {
    return std::binary_search(values.begin(), values.end(), v);
  };
  switch (op) {
    case SelectorOp::kIn:
    case SelectorOp::kEquals:
    case SelectorOp::kDoubleEquals:
      return has && contains(it->second);
    case SelectorOp::kNotIn:
    case SelectorOp::kNotEquals:
      return !has || !contains(it->second);
    case SelectorOp::kExists:
      return has;
    case SelectorOp::kDoesNotExist:
      return !has;
    case SelectorOp::kGreaterThan:
    case SelectorOp::kLessThan: {
      int64_t have = 0;
      int64_t want = 0;
      if (!has || values.size() != 1 || !ParseInt64(it->second, &have) ||
          !ParseInt64(values[0], &want)) {
        return false;
      }
      return op == SelectorOp::kGreaterThan ? have > want : have < want;
    }
  }
  return false;
}

std::string LabelRequirement::String() const {
  std::string out;
  if (op == SelectorOp::kDoesNotExist) out += "!";
  out += key;
  out += OpSymbol(op);
  if (op == SelectorOp::kIn || op == SelectorOp::kNotIn) {
    out += "(";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ",";
      out += values[i];
    }
    out += ")";
  } else if (op != SelectorOp::kExists && op != SelectorOp::kDoesNotExist && !values.empty()) {
    out += values[0];
  }
  return out;
}

LabelSelector LabelSelector::Nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

StatusOr<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelParser parser(text);
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<LabelRequirement> reqs, parser.Parse());
  LabelSelector s;
  s.requirements_ = std::move(reqs);
  SortRequirements(&s.requirements_);
  return s;
}

StatusOr<LabelSelector> LabelSelector::FromSet(const LabelMap& set) {
  LabelSelector s;
  for (const auto& [k, v] : set) {
    StatusOr<LabelRequirement> r = MakeLabelRequirement(k, SelectorOp::kEquals, {v});
    if (!r.ok()) return r.status().WithContext("label set");
    s.requirements_.push_back(std::move(r).value());
  }
  SortRequirements(&s.requirements_);
  return s;
}

StatusOr<LabelSelector> LabelSelector::FromJson(const Json& selector) {
  if (selector.is_null()) return Nothing();
  JsonReader r(selector, "selector");
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  LabelSelector s;
  if (const Json* ml = r.Get("matchLabels"); ml != nullptr && !ml->is_null()) {
    if (!ml->is_object()) {
      return InvalidArgumentError("selector.matchLabels: expected object, got " +
                                  std::string(JsonTypeName(*ml)));
    }
    for (const auto& [k, v] : ml->items()) {
      if (!v.is_string()) {
        return InvalidArgumentError("selector.matchLabels." + k + ": expected string, got " +
                                    std::string(JsonTypeName(v)));
      }
      StatusOr<LabelRequirement> req =
          MakeLabelRequirement(k, SelectorOp::kEquals, {v.get<std::string>()});
      if (!req.ok()) return req.status().WithContext("selector.matchLabels");
      s.requirements_.push_back(std::move(req).value());
    }
  }
  if (const Json* me = r.Get("matchExpressions"); me != nullptr && !me->is_null()) {
    if (!me->is_array()) {
      return InvalidArgumentError("selector.matchExpressions: expected array, got " +
                                  std::string(JsonTypeName(*me)));
    }
    for (size_t i = 0; i < me->size(); ++i) {
      const std::string path = JoinPath("selector.matchExpressions", i);
      JsonReader er((*me)[i], path);
      TRIMTAB_RETURN_IF_ERROR(er.ExpectObject());
      std::string key;
      std::string op;
      TRIMTAB_RETURN_IF_ERROR(er.RequiredString("key", &key));
      TRIMTAB_RETURN_IF_ERROR(er.RequiredString("operator", &op));
      std::vector<std::string> values;
      if (const Json* vs = er.Get("values"); vs != nullptr && !vs->is_null()) {
        if (!vs->is_array()) {
          return InvalidArgumentError(path + ".values: expected array, got " +
                                      std::string(JsonTypeName(*vs)));
        }
        for (const Json& v : *vs) {
          if (!v.is_string()) {
            return InvalidArgumentError(path + ".values: expected strings, got " +
                                        std::string(JsonTypeName(v)));
          }
          values.push_back(v.get<std::string>());
        }
      }
      TRIMTAB_RETURN_IF_ERROR(er.NoUnknownFields());
      SelectorOp sop;
      if (op == "In") {
        sop = SelectorOp::kIn;
      } else if (op == "NotIn") {
        sop = SelectorOp::kNotIn;
      } else if (op == "Exists") {
        sop = SelectorOp::kExists;
      } else if (op == "DoesNotExist") {
        sop = SelectorOp::kDoesNotExist;
      } else {
        return InvalidArgumentError(path + ".operator: \"" + op +
                                    "\" is not a valid label selector operator");
      }
      StatusOr<LabelRequirement> req = MakeLabelRequirement(key, sop, std::move(values));
      if (!req.ok()) return req.status().WithContext(path);
      s.requirements_.push_back(std::move(req).value());
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  SortRequirements(&s.requirements_);
  return s;
}

bool LabelSelector::Matches(const LabelMap& labels) const {
  if (nothing_) return false;
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const LabelRequirement& r) { return r.Matches(labels); });
}

std::string LabelSelector::String() const {
  if (nothing_) return "<none>";
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ",";
    out += requirements_[i].String();
  }
  return out;
}

LabelSelector LabelSelector::Add(LabelRequirement requirement) const {
  LabelSelector s = *this;
  s.nothing_ = false;
  s.requirements_.push_back(std::move(requirement));
  SortRequirements(&s.requirements_);
  return s;
}

// ---- Field selectors ----

namespace {

std::string EscapeFieldValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

// Splits on `sep` where it is not escaped by a backslash.
std::vector<std::string_view> SplitUnescaped(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

}  // namespace

StatusOr<FieldSelector> FieldSelector::Parse(std::string_view text) {
  FieldSelector s;
  auto error = [&](std::string what) {
    return InvalidArgumentError("field selector \"" + std::string(text) + "\": " + what);
  };
  if (text.empty()) return s;
  for (std::string_view term : SplitUnescaped(text, ',')) {
    // Find the first unescaped operator; "!=" and "==" before "=".
    size_t pos = std::string_view::npos;
    SelectorOp op = SelectorOp::kEquals;
    size_t op_len = 1;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.substr(i, 2) == "!=") {
        pos = i, op = SelectorOp::kNotEquals, op_len = 2;
        break;
      }
      if (term.substr(i, 2) == "==") {
        pos = i, op = SelectorOp::kDoubleEquals, op_len = 2;
        break;
      }
      if (term[i] == '=') {
        pos = i, op = SelectorOp::kEquals, op_len = 1;
        break;
      }
    }
    if (pos == std::string_view::npos) {
      return error("invalid selector: '" + std::string(term) +
                   "'; can't understand '" + std::string(term) + "'");
    }
    const std::string_view field = term.substr(0, pos);
    const std::string_view raw = term.substr(pos + op_len);
    if (field.empty()) return error("empty field name in term '" + std::string(term) + "'");
    std::string value;
    for (size_t i = 0; i < raw.size(); ++i) {
      const char c = raw[i];
      if (c == '\\') {
        if (i + 1 >= raw.size()) return error("unterminated escape in '" + std::string(raw) + "'");
        const char n = raw[++i];
        if (n != '\\' && n != ',' && n != '=') {
          return error("invalid escape sequence '\\" + std::string(1, n) + "'");
        }
        value += n;
      } else if (c == '=' || c == ',') {
        return error("invalid selector: unescaped '" + std::string(1, c) + "' in value '" +
                     std::string(raw) + "'");
      } else {
        value += c;
      }
    }
    s.requirements_.push_back({.field = std::string(field), .op = op, .value = std::move(value)});
  }
  std::stable_sort(s.requirements_.begin(), s.requirements_.end(),
                   [](const FieldRequirement& a, const FieldRequirement& b) {
                     return a.field < b.field;
                   });
  return s;
}

bool FieldSelector::Matches(const FieldMap& fields) const {
  for (const FieldRequirement& r : requirements_) {
    const auto it = fields.find(r.field);
    const std::string_view have = it == fields.end() ? std::string_view() : it->second;
    const bool equal = have == r.value;
    if (r.op == SelectorOp::kNotEquals ? equal : !equal) return false;
  }
  return true;
}

std::string FieldSelector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    const FieldRequirement& r = requirements_[i];
    if (i > 0) out += ",";
    out += r.field;
    out += OpSymbol(r.op);
    out += EscapeFieldValue(r.value);
  }
  return out;
}

const std::string* FieldSelector::RequiresExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.field == field && r.op != SelectorOp::kNotEquals) return &r.value;
  }
  return nullptr;
}

}  // namespace trimtab
