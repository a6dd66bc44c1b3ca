#include "common/k8s_validation.h"

#include <gtest/gtest.h>

namespace trimtab::k8s {
namespace {

using Errs = std::vector<std::string>;

TEST(K8sValidationTest, LabelValues) {
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_TRUE(IsValidLabelValue("my_value-1.x").empty());
  EXPECT_EQ(IsValidLabelValue("-bad"),
            Errs{"a valid label must be an empty string or consist of alphanumeric characters, "
                 "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                 "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                 "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"});
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'a')), Errs{"must be no more than 63 characters"});
}

TEST(K8sValidationTest, QualifiedNames) {
  EXPECT_TRUE(IsQualifiedName("app").empty());
  EXPECT_TRUE(IsQualifiedName("example.com/My_Name").empty());
  EXPECT_TRUE(IsQualifiedName("kubernetes.io/pvc-protection").empty());
  EXPECT_EQ(IsQualifiedName("a/b/c"),
            Errs{"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'MyName',  or "
                 "'my.name',  or '123-abc', regex used for validation is "
                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
                 "prefix and '/' (e.g. 'example.com/MyName')"});
  EXPECT_EQ(IsQualifiedName("/x"), Errs{"prefix part must be non-empty"});
  Errs upper = IsQualifiedName("Example.com/x");
  ASSERT_EQ(upper.size(), 1u);
  EXPECT_TRUE(upper[0].starts_with("prefix part a lowercase RFC 1123 subdomain must consist"));
  Errs empty = IsQualifiedName("");
  ASSERT_EQ(empty.size(), 2u);
  EXPECT_EQ(empty[0], "name part must be non-empty");
  EXPECT_EQ(IsQualifiedName(std::string(64, 'a')), Errs{"name part must be no more than 63 characters"});
}

TEST(K8sValidationTest, Dns1123) {
  EXPECT_TRUE(IsDns1123Label("my-name").empty());
  EXPECT_EQ(IsDns1123Label("My"),
            Errs{"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                 "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                 "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  EXPECT_TRUE(IsDns1123Subdomain("a.b-c.d").empty());
  EXPECT_EQ(IsDns1123Subdomain("a..b").size(), 1u);
  EXPECT_EQ(IsDns1123Subdomain(std::string(254, 'a')).front(), "must be no more than 253 characters");
}

TEST(K8sValidationTest, ConfigKeysAndPorts) {
  EXPECT_TRUE(IsConfigMapKey("KEY_name-1.txt").empty());
  EXPECT_EQ(IsConfigMapKey("a/b"),
            Errs{"a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                 "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                 "'[-._a-zA-Z0-9]+')"});
  EXPECT_EQ(IsConfigMapKey(".."), Errs{"must not be '..'"});
  EXPECT_EQ(IsConfigMapKey("..x"), Errs{"must not start with '..'"});
  EXPECT_TRUE(IsValidPortNum(1).empty());
  EXPECT_TRUE(IsValidPortNum(65535).empty());
  EXPECT_EQ(IsValidPortNum(0), Errs{"must be between 1 and 65535, inclusive"});
  EXPECT_EQ(IsValidPortNum(70000), Errs{"must be between 1 and 65535, inclusive"});
  EXPECT_TRUE(IsValidPortName("http-metrics").empty());
  EXPECT_EQ(IsValidPortName("123"), Errs{"must contain at least one letter (a-z)"});
  EXPECT_EQ(IsValidPortName("a--b"), Errs{"must not contain consecutive hyphens"});
  EXPECT_EQ(IsValidPortName("Http"),
            Errs{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"});
}

}  // namespace
}  // namespace trimtab::k8s
