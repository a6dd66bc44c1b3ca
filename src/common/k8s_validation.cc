#include "common/k8s_validation.h"

namespace trimtab::k8s {
namespace {

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kConfigKeyFmt = "[-._a-zA-Z0-9]+";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

bool LowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool Alnum(char c) { return LowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

std::string MaxLenError(size_t n) { return "must be no more than " + std::to_string(n) + " characters"; }

bool MatchesDns1123Label(std::string_view v) {
  if (v.empty() || !LowerAlnum(v.front()) || !LowerAlnum(v.back())) return false;
  for (char c : v) {
    if (!LowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesQualifiedNamePart(std::string_view v) {
  if (v.empty() || !Alnum(v.front()) || !Alnum(v.back())) return false;
  for (char c : v) {
    if (!Alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string RegexError(std::string_view msg, std::string_view regex,
                       const std::vector<std::string_view>& examples) {
  std::string out(msg);
  if (examples.empty()) return out + " (regex used for validation is '" + std::string(regex) + "')";
  out += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + std::string(examples[i]) + "', ";
  }
  return out + "regex used for validation is '" + std::string(regex) + "')";
}

std::vector<std::string> IsDns1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) errs.push_back(MaxLenError(kDns1123LabelMaxLength));
  if (!MatchesDns1123Label(value)) {
    errs.push_back(RegexError("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                              "characters or '-', and must start and end with an alphanumeric "
                              "character",
                              kDns1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsDns1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDns1123SubdomainMaxLength));
  }
  bool ok = !value.empty();
  size_t start = 0;
  while (ok) {
    const size_t dot = value.find('.', start);
    ok = MatchesDns1123Label(value.substr(start, dot == std::string_view::npos ? value.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) {
    errs.push_back(RegexError("a lowercase RFC 1123 subdomain must consist of lower case "
                              "alphanumeric characters, '-' or '.', and must start and end with "
                              "an alphanumeric character",
                              kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  const size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " +
                     RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (std::string& m : IsDns1123Subdomain(prefix)) errs.push_back("prefix part " + m);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + MaxLenError(kQualifiedNameMaxLength));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError("a valid label must be an empty string or consist of alphanumeric "
                              "characters, '-', '_' or '.', and must start and end with an "
                              "alphanumeric character",
                              kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsConfigMapKey(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kConfigKeyMaxLength) errs.push_back(MaxLenError(kConfigKeyMaxLength));
  bool ok = !value.empty();
  for (char c : value) ok = ok && (Alnum(c) || c == '-' || c == '_' || c == '.');
  if (!ok) {
    errs.push_back(RegexError("a valid config key must consist of alphanumeric characters, '-', "
                              "'_' or '.'",
                              kConfigKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  }
  if (value == ".") {
    errs.push_back("must not be '.'");
  } else if (value == "..") {
    errs.push_back("must not be '..'");
  } else if (value.starts_with("..")) {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

std::vector<std::string> IsValidPortNum(int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

std::vector<std::string> IsValidPortName(std::string_view name) {
  std::vector<std::string> errs;
  if (name.size() > 15) errs.push_back("must be no more than 15 characters");
  bool chars_ok = true;
  bool has_letter = false;
  for (char c : name) {
    chars_ok = chars_ok && (LowerAlnum(c) || c == '-');
    has_letter = has_letter || (c >= 'a' && c <= 'z');
  }
  if (!chars_ok) {
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!has_letter) {
    errs.push_back("must contain at least one letter (a-z)");
  }
  if (name.find("--") != std::string_view::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

}  // namespace trimtab::k8s
