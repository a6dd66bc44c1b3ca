#include "common/regex.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace trimtab {
namespace {

TEST(RegexTest, MatchesWholeOrPart) {
  auto re = Regex::Compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");
  ASSERT_TRUE(re.ok()) << re.status().message();
  EXPECT_TRUE(re->FullMatch("my-name"));
  EXPECT_FALSE(re->FullMatch("-bad"));
  auto part = Regex::Compile("b+");
  EXPECT_TRUE(part->PartialMatch("abbbc"));
  EXPECT_FALSE(part->FullMatch("abbbc"));
}

TEST(RegexTest, CapturesGroups) {
  auto re = Regex::Compile("([a-z]+)-(\\d+)?x");
  std::vector<std::string> groups;
  ASSERT_TRUE(re->FullMatch("abc-12x", &groups));
  EXPECT_EQ(groups, (std::vector<std::string>{"abc", "12"}));
  ASSERT_TRUE(re->FullMatch("abc-x", &groups));
  EXPECT_EQ(groups, (std::vector<std::string>{"abc", ""}));
}

TEST(RegexTest, ReplaceAllIsLiteral) {
  auto re = Regex::Compile("\\{\\{name\\}\\}", {.case_insensitive = true});
  EXPECT_EQ(re->ReplaceAll("{{name}}.{{NAME}}.x", "a\\1$0"), "a\\1$0.a\\1$0.x");
  auto empty = Regex::Compile("x*");
  EXPECT_EQ(empty->ReplaceAll("ab", "-"), "-a-b-");
}

TEST(RegexTest, CompileErrorsReadAsGo) {
  auto re = Regex::Compile("+");
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().message(),
            "error parsing regexp: missing argument to repetition operator: `+`");
  EXPECT_FALSE(Regex::Compile("(a)\\1").ok());   // backreferences: not linear
  EXPECT_FALSE(Regex::Compile("a(?=b)").ok());   // lookahead: not linear
  EXPECT_FALSE(Regex::Compile("a{1001}").ok());  // repetition bound
}

// Issue 27: std::regex took 27 s for `^(a+)+$` on 30 characters and overflowed the stack on a
// 100,000-character value. Both are linear now.
TEST(RegexTest, Issue27NoCatastrophicBacktrackingOrDeepRecursion) {
  auto evil = Regex::Compile("^(a+)+$");
  ASSERT_TRUE(evil.ok());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(evil->PartialMatch(std::string(30, 'a') + "!"));
  EXPECT_FALSE(evil->PartialMatch(std::string(100000, 'a') + "!"));
  auto alt = Regex::Compile("^(a|a)*$");
  EXPECT_TRUE(alt->FullMatch(std::string(100000, 'a')));
  auto dns = Regex::Compile("[a-z]([-a-z0-9]{0,43}[a-z0-9])?");
  EXPECT_FALSE(dns->FullMatch(std::string(1000000, 'a')));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(RegexTest, CacheSharesAndRemembersErrors) {
  auto a = CachedRegex("^x+$");
  auto b = CachedRegex("^x+$");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(&a->pattern(), &b->pattern());
  EXPECT_FALSE(CachedRegex("(").ok());
  EXPECT_FALSE(CachedRegex("(").ok());
}

}  // namespace
}  // namespace trimtab
