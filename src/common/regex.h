// Regex: the one regular-expression engine for anything a user, a manifest or the network can
// reach (CRD `pattern`s, validators, metric names). It is RE2: matching takes time linear in the
// input and constant stack, so no pattern and no value can hang or crash the process
// (std::regex overflowed the stack on a 100,000-character value and took 27 s for `^(a+)+$`).
// The syntax is RE2's, which is Go's `regexp`, the engine kube-apiserver validates CRD patterns
// with; what RE2 cannot compile (backreferences, lookaround, repetition counts over 1000) is an
// InvalidArgument error whose message reads as Go's ("error parsing regexp: ...").
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(Regex re, Regex::Compile("^[a-z]+$"));
//   if (re.FullMatch(name)) ...
//   // Patterns that come from data (schemas) are compiled once and shared:
//   StatusOr<Regex> p = CachedRegex(schema_pattern);
//
// Thread-safety: a Regex is immutable and cheap to copy (it shares the compiled program);
// matching from many threads at once is safe. CachedRegex is safe for concurrent use.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace re2 {
class RE2;
}

namespace trimtab {

struct RegexOptions {
  bool case_insensitive = false;
  // Memory RE2 may use for the compiled program and its DFA cache; a pattern that needs more
  // fails to compile (RE2's default is 8 MiB).
  int64_t max_mem_bytes = 8 << 20;
};

class Regex {
 public:
  // Compiles `pattern` (RE2 syntax). InvalidArgument: "error parsing regexp: <why>: `<part>`".
  static StatusOr<Regex> Compile(std::string_view pattern, RegexOptions options = {});

  // The whole of `text` matches.
  bool FullMatch(std::string_view text) const;
  // Some part of `text` matches (as Go's regexp.MatchString and JSON Schema's `pattern`).
  bool PartialMatch(std::string_view text) const;
  // Whole match; `groups` gets the capturing groups' texts (empty for a group that did not take
  // part).
  bool FullMatch(std::string_view text, std::vector<std::string>* groups) const;
  // Replaces every non-overlapping match with `replacement` taken literally.
  std::string ReplaceAll(std::string_view text, std::string_view replacement) const;

  const std::string& pattern() const;

 private:
  explicit Regex(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  std::shared_ptr<const re2::RE2> re_;
};

// Compiles through a process-wide cache of at most `kRegexCacheSize` patterns (then it starts
// over), for patterns that come with data and repeat (a CRD schema's patterns on every write).
inline constexpr size_t kRegexCacheSize = 1024;
StatusOr<Regex> CachedRegex(std::string_view pattern);

}  // namespace trimtab
