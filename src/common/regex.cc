#include "common/regex.h"

#include <map>
#include <mutex>

#include <re2/re2.h>

namespace trimtab {

StatusOr<Regex> Regex::Compile(std::string_view pattern, RegexOptions options) {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_case_sensitive(!options.case_insensitive);
  o.set_max_mem(options.max_mem_bytes);
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), o);
  if (!re->ok()) {
    // Go's regexp/syntax wording for each failure, then the offending part in backquotes.
    std::string why;
    switch (re->error_code()) {
      case RE2::ErrorBadEscape: why = "invalid escape sequence"; break;
      case RE2::ErrorBadCharClass: why = "invalid character class"; break;
      case RE2::ErrorBadCharRange: why = "invalid character class range"; break;
      case RE2::ErrorMissingBracket: why = "missing closing ]"; break;
      case RE2::ErrorMissingParen: why = "missing closing )"; break;
      case RE2::ErrorUnexpectedParen: why = "unexpected )"; break;
      case RE2::ErrorTrailingBackslash: why = "trailing backslash at end of expression"; break;
      case RE2::ErrorRepeatArgument: why = "missing argument to repetition operator"; break;
      case RE2::ErrorRepeatSize: why = "invalid repeat count"; break;
      case RE2::ErrorRepeatOp: why = "invalid nested repetition operator"; break;
      case RE2::ErrorBadPerlOp: why = "invalid or unsupported Perl syntax"; break;
      case RE2::ErrorBadUTF8: why = "invalid UTF-8"; break;
      case RE2::ErrorBadNamedCapture: why = "invalid named capture"; break;
      case RE2::ErrorPatternTooLarge: why = "expression too large"; break;
      default: why = re->error(); break;
    }
    const std::string& arg = re->error_arg();
    if (!arg.empty() && re->error_code() != RE2::ErrorPatternTooLarge) why += ": `" + arg + "`";
    return InvalidArgumentError("error parsing regexp: " + why);
  }
  return Regex(std::move(re));
}

bool Regex::FullMatch(std::string_view text) const {
  return RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool Regex::PartialMatch(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool Regex::FullMatch(std::string_view text, std::vector<std::string>* groups) const {
  const int n = re_->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> pieces(static_cast<size_t>(n) + 1);
  const re2::StringPiece input(text.data(), text.size());
  if (!re_->Match(input, 0, input.size(), RE2::ANCHOR_BOTH, pieces.data(), n + 1)) return false;
  groups->clear();
  for (int i = 1; i <= n; ++i) groups->emplace_back(pieces[static_cast<size_t>(i)].data() == nullptr
                                                        ? std::string()
                                                        : std::string(pieces[static_cast<size_t>(i)]));
  return true;
}

std::string Regex::ReplaceAll(std::string_view text, std::string_view replacement) const {
  std::string out;
  const re2::StringPiece input(text.data(), text.size());
  size_t pos = 0;
  re2::StringPiece m;
  while (pos <= input.size() &&
         re_->Match(input, pos, input.size(), RE2::UNANCHORED, &m, 1)) {
    const size_t start = static_cast<size_t>(m.data() - input.data());
    out.append(text.substr(pos, start - pos));
    out.append(replacement);
    pos = start + m.size();
    if (m.empty()) {  // an empty match: copy one byte and move on
      if (pos < text.size()) out.push_back(text[pos]);
      ++pos;
    }
  }
  if (pos < text.size()) out.append(text.substr(pos));
  return out;
}

const std::string& Regex::pattern() const { return re_->pattern(); }

StatusOr<Regex> CachedRegex(std::string_view pattern) {
  static std::mutex mu;
  static auto* cache = new std::map<std::string, StatusOr<Regex>, std::less<>>();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache->find(pattern); it != cache->end()) return it->second;
  }
  StatusOr<Regex> compiled = Regex::Compile(pattern);
  std::lock_guard<std::mutex> lock(mu);
  if (cache->size() >= kRegexCacheSize) cache->clear();
  cache->emplace(std::string(pattern), compiled);
  return compiled;
}

}  // namespace trimtab
