#include "adapters/kube/rest_config.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

namespace trimtab::kube {
namespace {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("trimtab-kubeconfig-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& content) const {
    const auto p = path_ / name;
    std::ofstream(p) << content;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

constexpr char kKubeconfig[] = R"(
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCg==
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    certificate-authority: certs/ca.pem
    insecure-skip-tls-verify: true
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: flink
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
users:
- name: dev-user
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: prod-user
  user:
    tokenFile: token.txt
    client-certificate: /abs/client.crt
    client-key: keys/client.key
)";

TEST(KubeconfigTest, CurrentContextWithDataFields) {
  StatusOr<RestConfig> c = ParseKubeconfig(kKubeconfig, "/etc/kube-test", "");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://10.0.0.1:6443");
  EXPECT_EQ(c->context_name, "dev");
  EXPECT_EQ(c->namespace_name, "flink");
  EXPECT_EQ(c->tls.ca_data, "-----BEGIN CERTIFICATE-----\nCA\n");
  EXPECT_EQ(c->tls.ca_file, "");
  EXPECT_EQ(c->tls.client_cert_data, "CERT");
  EXPECT_EQ(c->tls.client_key_data, "KEY");
  EXPECT_FALSE(c->tls.insecure_skip_verify);
  EXPECT_EQ(c->bearer_token, "");
}

TEST(KubeconfigTest, ExplicitContextFilesAndTokenFile) {
  TempDir dir;
  dir.Write("token.txt", "  abc.def.ghi\n");
  const std::string path = dir.Write("config", kKubeconfig);
  StatusOr<RestConfig> c = LoadKubeconfigFile(path, "prod");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://prod.example.com");
  EXPECT_EQ(c->namespace_name, "default");
  EXPECT_EQ(c->tls.ca_file, dir.path() + "/certs/ca.pem");
  EXPECT_TRUE(c->tls.insecure_skip_verify);
  EXPECT_EQ(c->tls.client_cert_file, "/abs/client.crt");
  EXPECT_EQ(c->tls.client_key_file, dir.path() + "/keys/client.key");
  EXPECT_EQ(c->bearer_token, "abc.def.ghi");
  EXPECT_EQ(c->bearer_token_file, dir.path() + "/token.txt");
}

TEST(KubeconfigTest, Errors) {
  EXPECT_NE(ParseKubeconfig(kKubeconfig, "", "nope").status().message().find(
                "no context named \"nope\""),
            std::string::npos);
  EXPECT_EQ(ParseKubeconfig("apiVersion: v1\nkind: Config\n", "", "").status().message(),
            "kubeconfig: no current-context set and no context given");
  const std::string exec_user = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {exec: {command: aws}}}]
)";
  StatusOr<RestConfig> exec = ParseKubeconfig(exec_user, "", "");
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.status().message().find("\"exec\" authentication is not supported"),
            std::string::npos);
  const std::string bad_server = R"(
current-context: c
clusters: [{name: k, cluster: {server: "10.0.0.1:6443"}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  EXPECT_FALSE(ParseKubeconfig(bad_server, "", "").ok());
  const std::string bad_b64 = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x", certificate-authority-data: "!!"}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  StatusOr<RestConfig> b = ParseKubeconfig(bad_b64, "", "");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("certificate-authority-data"), std::string::npos);
  TempDir dir;
  const std::string missing_token = R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {tokenFile: missing}}]
)";
  EXPECT_FALSE(ParseKubeconfig(missing_token, dir.path(), "").ok());
}

TEST(InClusterConfigTest, ReadsServiceAccount) {
  TempDir dir;
  dir.Write("token", "sa-token\n");
  dir.Write("ca.crt", "-----BEGIN CERTIFICATE-----\n");
  dir.Write("namespace", "flink-jobs\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"}};
  auto getenv = [&](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  StatusOr<RestConfig> c = InClusterConfig({.service_account_dir = dir.path(), .getenv = getenv});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://10.96.0.1:443");
  EXPECT_EQ(c->bearer_token, "sa-token");
  EXPECT_EQ(c->bearer_token_file, dir.path() + "/token");
  EXPECT_EQ(c->tls.ca_file, dir.path() + "/ca.crt");
  EXPECT_EQ(c->namespace_name, "flink-jobs");

  env["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  c = InClusterConfig({.service_account_dir = dir.path(), .getenv = getenv});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->server, "https://[fd00::1]:443");

  env.erase("KUBERNETES_SERVICE_PORT");
  StatusOr<RestConfig> no_env = InClusterConfig({.service_account_dir = dir.path(), .getenv = getenv});
  ASSERT_FALSE(no_env.ok());
  EXPECT_EQ(no_env.status().code(), StatusCode::kFailedPrecondition);

  env["KUBERNETES_SERVICE_PORT"] = "443";
  std::filesystem::remove(dir.path() + "/token");
  EXPECT_FALSE(InClusterConfig({.service_account_dir = dir.path(), .getenv = getenv}).ok());
}

// trimtab local's process pods: a plain-HTTP API server and the files in a directory of the pod.
TEST(InClusterConfigTest, LocalProcessPodOverrides) {
  TempDir dir;
  dir.Write("token", "pod-token\n");
  dir.Write("namespace", "trimtab-system\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "127.0.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "6443"},
                                            {"TRIMTAB_KUBERNETES_SERVICE_SCHEME", "http"},
                                            {"TRIMTAB_SERVICE_ACCOUNT_DIR", dir.path()}};
  auto getenv = [&](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  StatusOr<RestConfig> c = InClusterConfig({.service_account_dir = "/nonexistent", .getenv = getenv});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "http://127.0.0.1:6443");
  EXPECT_EQ(c->bearer_token, "pod-token");
  EXPECT_TRUE(c->tls.ca_file.empty());
  EXPECT_EQ(c->namespace_name, "trimtab-system");
  // https without a ca.crt in the directory is still an error; other schemes are rejected.
  env["TRIMTAB_KUBERNETES_SERVICE_SCHEME"] = "https";
  EXPECT_FALSE(InClusterConfig({.getenv = getenv}).ok());
  env["TRIMTAB_KUBERNETES_SERVICE_SCHEME"] = "ftp";
  StatusOr<RestConfig> bad = InClusterConfig({.getenv = getenv});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("TRIMTAB_KUBERNETES_SERVICE_SCHEME"), std::string::npos);
}

TEST(Base64Test, RoundTrip) {
  for (const std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    StatusOr<std::string> back = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(*Base64Decode("Zm8"), "fo");  // unpadded
  EXPECT_EQ(*Base64Decode("Zm9v\nYmFy"), "foobar");
  EXPECT_FALSE(Base64Decode("Zm9v*").ok());
  EXPECT_FALSE(Base64Decode("Z").ok());
}

}  // namespace
}  // namespace trimtab::kube
