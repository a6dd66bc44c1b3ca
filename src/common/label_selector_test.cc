#include "common/label_selector.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab {
namespace {

std::string StripSpaces(std::string s) {
  std::erase(s, ' ');
  return s;
}

TEST(LabelSelectorTest, GoodStringsRoundTrip) {
  // Cases from apimachinery TestSelectorParse: String() equals the input without spaces.
  for (const char* text : {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x",
                           "x>1", "x>1,z<5"}) {
    StatusOr<LabelSelector> s = LabelSelector::Parse(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().ToString();
    EXPECT_EQ(s->String(), StripSpaces(text)) << text;
  }
}

TEST(LabelSelectorTest, BadStrings) {
  for (const char* text :
       {"x=a||y=b", "x==a==b", "!x=a", "x<a", ",x,y", "x nott in (y)", "a in (xyz),",
        "a in (xyz)b notin ()", "a in (xyz abc)", "a notin(", "a (", "(", "x>1.5"}) {
    EXPECT_FALSE(LabelSelector::Parse(text).ok()) << text;
  }
}

TEST(LabelSelectorTest, DeterministicOrder) {
  EXPECT_EQ(LabelSelector::Parse("x=a,a=x")->String(), LabelSelector::Parse("a=x,x=a")->String());
  EXPECT_EQ(LabelSelector::Parse("x=a,a=x")->String(), "a=x,x=a");
}

TEST(LabelSelectorTest, SetSyntax) {
  struct Case {
    const char* in;
    const char* canonical;
  };
  const Case cases[] = {
      {"\rx", "x"},
      {"this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"},
      {"this-is-another-dns.domain.com/key-with-dash in (so,what)",
       "this-is-another-dns.domain.com/key-with-dash in (so,what)"},
      {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
       "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"},
      {"foo  in\t (abc)", "foo in (abc)"},
      {"x notin\n (abc)", "x notin (abc)"},
      {"x in (abc,def)", "x in (abc,def)"},
      {"x in (def,abc,abc)", "x in (abc,def)"},
      {"x in (abc,)", "x in (,abc)"},
      {"x in ()", "x in ()"},
      {"x notin (abc,def),bar,z in (),w", "bar,w,x notin (abc,def),z in ()"},
      {"x,y in (a)", "x,y in (a)"},
      {"x notin ( )", "x notin ()"},
      {"x notin (, a)", "x notin (,a)"},
      {"a ", "a"},
      {"a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"},
      {"notin=in", "notin=in"},
      {"y==jkl,x=abc", "x=abc,y==jkl"},
      {"!a,b", "!a,b"},
  };
  for (const Case& c : cases) {
    StatusOr<LabelSelector> s = LabelSelector::Parse(c.in);
    ASSERT_TRUE(s.ok()) << c.in << ": " << s.status().ToString();
    EXPECT_EQ(s->String(), c.canonical) << c.in;
  }
}

TEST(LabelSelectorTest, Matches) {
  struct Case {
    const char* selector;
    LabelMap labels;
    bool match;
  };
  const Case cases[] = {
      {"", {{"x", "y"}}, true},
      {"x=y", {{"x", "y"}}, true},
      {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, true},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "a"}}, true},
      {"notin=in", {{"notin", "in"}}, true},
      {"x", {{"x", "z"}}, true},
      {"!x", {{"y", "z"}}, true},
      {"x>1", {{"x", "2"}}, true},
      {"x<1", {{"x", "0"}}, true},
      {"x=z", {}, false},
      {"x=y", {{"x", "z"}}, false},
      {"x=y,z=w", {{"x", "w"}, {"z", "w"}}, false},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "w"}}, false},
      {"x", {{"y", "z"}}, false},
      {"!x", {{"x", "z"}}, false},
      {"x>1", {{"x", "0"}}, false},
      {"x<1", {{"x", "2"}}, false},
      {"z>1", {{"z", "v2"}}, false},
      {"x>1", {}, false},
      {"foo=bar,baz=blah", {{"foo", "bar"}, {"baz", "blah"}}, true},
      {"foo=bar,foobar=bar,baz=blah", {{"foo", "bar"}, {"baz", "blah"}}, false},
      {"x in (foo),y notin (alpha)", {{"x", "foo"}, {"y", "baz"}}, true},
      {"x in (foo),y in (alpha)", {{"x", "foo"}, {"y", "baz"}}, false},
      {"x notin (),y", {{"y", ""}}, true},
      {"!x,y", {{"y", ""}}, true},
      {"x notin (),!y", {{"y", ""}}, false},
      {"x in ()", {{"y", "baz"}}, false},
      {"x in ()", {{"x", ""}}, true},
      {"env notin (prod)", {}, true},
  };
  for (const Case& c : cases) {
    StatusOr<LabelSelector> s = LabelSelector::Parse(c.selector);
    ASSERT_TRUE(s.ok()) << c.selector << ": " << s.status().ToString();
    EXPECT_EQ(s->Matches(c.labels), c.match) << c.selector;
  }
}

TEST(LabelSelectorTest, KeyAndValueValidation) {
  EXPECT_TRUE(MakeLabelRequirement("1foo", SelectorOp::kIn, {"bar"}).ok());
  EXPECT_TRUE(MakeLabelRequirement("1234", SelectorOp::kIn, {"bar"}).ok());
  EXPECT_TRUE(MakeLabelRequirement("y", SelectorOp::kGreaterThan, {"1"}).ok());
  EXPECT_FALSE(MakeLabelRequirement("x", SelectorOp::kIn, {}).ok());
  EXPECT_FALSE(MakeLabelRequirement("x", SelectorOp::kNotIn, {}).ok());
  EXPECT_FALSE(MakeLabelRequirement("foo", SelectorOp::kGreaterThan, {"bar"}).ok());
  EXPECT_FALSE(MakeLabelRequirement("barz", SelectorOp::kLessThan, {"blah"}).ok());
  EXPECT_FALSE(MakeLabelRequirement(std::string(254, 'a'), SelectorOp::kExists, {}).ok());

  StatusOr<LabelRequirement> long_name =
      MakeLabelRequirement(std::string(64, 'a'), SelectorOp::kExists, {});
  ASSERT_FALSE(long_name.ok());
  EXPECT_NE(long_name.status().message().find("name part must be no more than 63 characters"),
            std::string::npos);
  EXPECT_EQ(ValidateQualifiedName("Example.com/x"),
            ValidateQualifiedName("UPPER/x"));  // both prefixes fail the lowercase rule
  EXPECT_NE(ValidateQualifiedName("Example.com/x").find("prefix part"), std::string::npos);
  EXPECT_EQ(ValidateQualifiedName("/x"), "prefix part must be non-empty");
  EXPECT_EQ(ValidateQualifiedName("a/"), "name part must be non-empty");
  EXPECT_NE(ValidateQualifiedName("a/b/c").find("qualified name"), std::string::npos);
  EXPECT_EQ(ValidateQualifiedName("app.kubernetes.io/name"), "");
  EXPECT_EQ(ValidateLabelValue(""), "");
  EXPECT_EQ(ValidateLabelValue("my_value.1"), "");
  EXPECT_NE(ValidateLabelValue("-bad"), "");
  EXPECT_EQ(ValidateLabelValue(std::string(64, 'v')), "must be no more than 63 characters");

  StatusOr<LabelSelector> bad = LabelSelector::Parse("app=web,tier=-x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("label selector \"app=web,tier=-x\": key \"tier\": "
                                        "value \"-x\""),
            std::string::npos)
      << bad.status().message();
}

TEST(LabelSelectorTest, StructuredForm) {
  const Json doc = Json::parse(R"({
    "matchLabels": {"app": "web"},
    "matchExpressions": [
      {"key": "zone", "operator": "In", "values": ["b", "a"]},
      {"key": "tier", "operator": "NotIn", "values": ["cache"]},
      {"key": "canary", "operator": "DoesNotExist"},
      {"key": "team", "operator": "Exists"}
    ]})");
  StatusOr<LabelSelector> s = LabelSelector::FromJson(doc);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->String(), "app=web,!canary,team,tier notin (cache),zone in (a,b)");
  EXPECT_TRUE(s->Matches({{"app", "web"}, {"zone", "a"}, {"team", "x"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"zone", "c"}, {"team", "x"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"zone", "a"}, {"team", "x"}, {"canary", "1"}}));
  EXPECT_FALSE(s->Matches({{"app", "web"}, {"zone", "a"}, {"team", "x"}, {"tier", "cache"}}));

  StatusOr<LabelSelector> everything = LabelSelector::FromJson(Json::object());
  ASSERT_TRUE(everything.ok());
  EXPECT_TRUE(everything->Empty());
  EXPECT_TRUE(everything->Matches({}));

  StatusOr<LabelSelector> nothing = LabelSelector::FromJson(Json());
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing->IsNothing());
  EXPECT_FALSE(nothing->Matches({{"a", "b"}}));

  StatusOr<LabelSelector> bad_op = LabelSelector::FromJson(
      Json::parse(R"({"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]})"));
  ASSERT_FALSE(bad_op.ok());
  EXPECT_EQ(bad_op.status().message(),
            "selector.matchExpressions[0].operator: \"Gt\" is not a valid label selector operator");

  EXPECT_FALSE(LabelSelector::FromJson(
                   Json::parse(R"({"matchExpressions":[{"key":"a","operator":"In"}]})"))
                   .ok());
  EXPECT_FALSE(LabelSelector::FromJson(Json::parse(
                                           R"({"matchExpressions":[{"key":"a","operator":"Exists",
                                               "values":["x"]}]})"))
                   .ok());
  EXPECT_FALSE(LabelSelector::FromJson(Json::parse(R"({"matchLabel":{}})")).ok());
}

TEST(LabelSelectorTest, FromSetAndAdd) {
  StatusOr<LabelSelector> s = LabelSelector::FromSet({{"b", "2"}, {"a", "1"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->String(), "a=1,b=2");
  StatusOr<LabelRequirement> r = MakeLabelRequirement("a0", SelectorOp::kExists, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(s->Add(*r).String(), "a=1,a0,b=2");
  EXPECT_TRUE(LabelSelector().Empty());
  EXPECT_FALSE(LabelSelector::FromSet({{"bad key", "x"}}).ok());
}

TEST(FieldSelectorTest, ParseAndMatch) {
  StatusOr<FieldSelector> s = FieldSelector::Parse("status.phase!=Running,metadata.name=x");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->String(), "metadata.name=x,status.phase!=Running");
  EXPECT_TRUE(s->Matches({{"metadata.name", "x"}, {"status.phase", "Pending"}}));
  EXPECT_FALSE(s->Matches({{"metadata.name", "x"}, {"status.phase", "Running"}}));
  EXPECT_FALSE(s->Matches({{"metadata.name", "y"}}));
  EXPECT_TRUE(s->Matches({{"metadata.name", "x"}}));  // missing field reads as ""
  ASSERT_NE(s->RequiresExactMatch("metadata.name"), nullptr);
  EXPECT_EQ(*s->RequiresExactMatch("metadata.name"), "x");
  EXPECT_EQ(s->RequiresExactMatch("status.phase"), nullptr);

  StatusOr<FieldSelector> dbl = FieldSelector::Parse("a==b");
  ASSERT_TRUE(dbl.ok());
  EXPECT_EQ(dbl->String(), "a==b");
  EXPECT_TRUE(dbl->Matches({{"a", "b"}}));

  StatusOr<FieldSelector> empty_value = FieldSelector::Parse("spec.nodeName=");
  ASSERT_TRUE(empty_value.ok());
  EXPECT_TRUE(empty_value->Matches({}));
  EXPECT_FALSE(empty_value->Matches({{"spec.nodeName", "n1"}}));

  EXPECT_TRUE(FieldSelector::Parse("")->Empty());
}

TEST(FieldSelectorTest, Escapes) {
  StatusOr<FieldSelector> s = FieldSelector::Parse(R"(a=x\,y\=z\\w,b!=c)");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->requirements().size(), 2u);
  EXPECT_EQ(s->requirements()[0].value, R"(x,y=z\w)");
  EXPECT_EQ(s->String(), R"(a=x\,y\=z\\w,b!=c)");
  EXPECT_TRUE(s->Matches({{"a", R"(x,y=z\w)"}}));

  for (const char* bad : {"a", "a=b=c", R"(a=b\c)", "a=b,c", R"(a=b\)"}) {
    EXPECT_FALSE(FieldSelector::Parse(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace trimtab
