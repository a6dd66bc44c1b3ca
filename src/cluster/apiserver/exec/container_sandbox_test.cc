#include "cluster/apiserver/exec/container_sandbox.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/exec/pod_exec.h"
#include "cluster/apiserver/exec/tar_archive.h"

namespace trimtab::cluster::exec {
namespace {

ContainerSandbox Box() {
  return ContainerSandbox({.hostname = "web-0",
                           .env = {{"GREETING", "hello world"}, {"APP", "web"}},
                           .working_dir = "/app",
                           .main_command = "nginx -g daemon off;",
                           .files = {{"/etc/config/app.properties", "a=1\nb=2\n"}},
                           .created = 1700000000});
}

ExecResult Sh(ContainerSandbox& box, const std::string& script, const std::string& in = "") {
  return box.Run({"sh", "-c", script}, in, 1700000100);
}

TEST(ContainerSandboxTest, CommandsSeeTheSeededFilesAndEnvironment) {
  ContainerSandbox box = Box();
  ExecResult r = box.Run({"cat", "/etc/config/app.properties"}, "", 0);
  EXPECT_EQ(r.out, "a=1\nb=2\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(box.Run({"hostname"}, "", 0).out, "web-0\n");
  EXPECT_EQ(box.Run({"pwd"}, "", 0).out, "/app\n");
  EXPECT_EQ(box.Run({"printenv", "GREETING"}, "", 0).out, "hello world\n");
  EXPECT_EQ(box.Run({"/bin/ls", "/etc/config"}, "", 0).out, "app.properties\n");
  EXPECT_NE(box.Run({"ps"}, "", 0).out.find("1 root      0:00 nginx -g daemon off;"),
            std::string::npos);
}

TEST(ContainerSandboxTest, ShellScriptsWithVariablesRedirectionsPipesAndStatus) {
  ContainerSandbox box = Box();
  ExecResult r = Sh(box, "echo \"$GREETING\" > /tmp/g; cat /tmp/g | wc -l; X=5; echo ${X}$APP");
  EXPECT_EQ(r.out, "1\n5web\n");
  r = Sh(box, "false && echo no || echo yes; test -d /tmp && echo dir");
  EXPECT_EQ(r.out, "yes\ndir\n");
  r = Sh(box, "nosuch arg");
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err, "sh: nosuch: not found\n");
  r = Sh(box, "echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  r = Sh(box, "cat /nope 2>&1; echo $?");
  EXPECT_EQ(r.out, "cat: /nope: No such file or directory\n1\n");
  r = Sh(box, "echo 'unterminated");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unterminated"), std::string::npos);
  // The file system persists across execs.
  EXPECT_EQ(box.Run({"cat", "/tmp/g"}, "", 0).out, "hello world\n");
  r = Sh(box, "mkdir -p /data/x && cd /data && touch x/f && ls x; rm -r /data; ls /data");
  EXPECT_EQ(r.out, "f\n");
  EXPECT_EQ(r.err, "ls: /data: No such file or directory\n");
  r = Sh(box, "grep -c = /etc/config/app.properties; head -n 1 /etc/config/app.properties");
  EXPECT_EQ(r.out, "2\na=1\n");
}

TEST(ContainerSandboxTest, UnknownBinaryFailsToStartOnDirectExec) {
  ContainerSandbox box = Box();
  ExecResult r = box.Run({"nginx", "-s", "reload"}, "", 0);
  ASSERT_TRUE(r.start_error.has_value());
  EXPECT_EQ(*r.start_error, "exec: \"nginx\": executable file not found in $PATH");
}

TEST(ContainerSandboxTest, StdinReadersAreKnown) {
  EXPECT_TRUE(ContainerSandbox::ReadsStdin({"cat"}));
  EXPECT_FALSE(ContainerSandbox::ReadsStdin({"cat", "/etc/hosts"}));
  EXPECT_TRUE(ContainerSandbox::ReadsStdin({"tar", "-xmf", "-", "-C", "/tmp"}));
  EXPECT_TRUE(ContainerSandbox::ReadsStdin({"tar", "xf", "-"}));
  EXPECT_FALSE(ContainerSandbox::ReadsStdin({"tar", "cf", "-", "/etc/hosts"}));
  EXPECT_TRUE(ContainerSandbox::ReadsStdin({"sh", "-c", "cat > /tmp/x"}));
  EXPECT_FALSE(ContainerSandbox::ReadsStdin({"sh", "-c", "cat < /etc/hosts"}));
  EXPECT_TRUE(ContainerSandbox::ReadsStdin({"sh"}));
  EXPECT_FALSE(ContainerSandbox::ReadsStdin({"ls", "-l"}));
}

// What `kubectl cp` runs: `tar cf - <path>` from a pod, `test -d` then `tar -xmf - -C <dir>` into
// one.
TEST(ContainerSandboxTest, KubectlCpInAndOut) {
  ContainerSandbox box = Box();
  ExecResult r = box.Run({"tar", "cf", "-", "/etc/config"}, "", 0);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "tar: Removing leading `/' from member names\n");
  StatusOr<std::vector<TarEntry>> entries = ReadTar(r.out);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].name, "etc/config/");
  EXPECT_EQ((*entries)[1].name, "etc/config/app.properties");
  EXPECT_EQ((*entries)[1].data, "a=1\nb=2\n");

  EXPECT_EQ(box.Run({"test", "-d", "/tmp"}, "", 0).exit_code, 0);
  EXPECT_EQ(box.Run({"test", "-d", "/tmp/new.txt"}, "", 0).exit_code, 1);
  const std::string upload = WriteTar({{.name = "tmp/new.txt", .mode = 0600, .data = "uploaded\n"}});
  r = box.Run({"tar", "-xmf", "-", "-C", "/"}, upload, 1700000200);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(box.Run({"cat", "/tmp/new.txt"}, "", 0).out, "uploaded\n");
  r = box.Run({"tar", "xzf", "-"}, upload, 0);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("compression"), std::string::npos);
  // Members escaping the destination are skipped.
  r = box.Run({"tar", "xf", "-", "-C", "/tmp"}, WriteTar({{.name = "../etc/evil", .data = "x"}}), 0);
  EXPECT_NE(r.err.find("outside the destination"), std::string::npos) << r.err;
  EXPECT_NE(box.Run({"cat", "/etc/evil"}, "", 0).exit_code, 0);
}

// `kubectl exec -it POD -- sh`: one line at a time, keeping cd, variables and the last status.
TEST(ContainerSandboxTest, InteractiveShellKeepsItsStateBetweenLines) {
  ContainerSandbox box = Box();
  EXPECT_TRUE(ContainerSandbox::IsInteractiveShell({"sh"}));
  EXPECT_TRUE(ContainerSandbox::IsInteractiveShell({"/bin/bash", "-i"}));
  EXPECT_FALSE(ContainerSandbox::IsInteractiveShell({"sh", "-c", "ls"}));
  EXPECT_FALSE(ContainerSandbox::IsInteractiveShell({"sh", "script.sh"}));
  ContainerSandbox::ShellState state = box.NewShellState();
  EXPECT_EQ(state.cwd, "/app");
  EXPECT_EQ(box.RunLine("cd /etc/config; X=7", &state, 0).exit_code, 0);
  EXPECT_EQ(state.cwd, "/etc/config");
  EXPECT_EQ(box.RunLine("ls; echo $X", &state, 0).out, "app.properties\n7\n");
  EXPECT_EQ(box.RunLine("false", &state, 0).exit_code, 1);
  EXPECT_FALSE(state.exited);
  box.RunLine("exit 4", &state, 0);
  EXPECT_TRUE(state.exited);
  EXPECT_EQ(state.status, 4);
}

TEST(ContainerSandboxTest, CapacityBoundsWrites) {
  ContainerSandbox box({.hostname = "small", .capacity_bytes = 16});
  ExecResult r = box.Run({"sh", "-c", "echo 0123456789abcdefghij > /tmp/big"}, "", 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}

TEST(PodExecTest, ParseExecOptionsNamesWhatIsWrong) {
  Json pod = Json::parse(R"({"metadata": {"name": "p"},
    "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
    "status": {"containerStatuses": [{"name": "a", "state": {"running": {}}},
                                     {"name": "b", "state": {"waiting": {}}}]}})");
  auto parse = [&](std::vector<std::pair<std::string, std::string>> query) {
    http::HttpRequest r;
    r.query = std::move(query);
    return ParseExecOptions(r, pod);
  };
  StatusOr<ExecOptions> ok = parse({{"command", "sh"}, {"command", "-c"}, {"command", "ls"},
                                    {"container", "a"}, {"stdout", "true"}, {"tty", "true"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->command, (std::vector<std::string>{"sh", "-c", "ls"}));
  EXPECT_TRUE(ok->tty);
  EXPECT_FALSE(ok->stdin);
  EXPECT_EQ(parse({{"container", "a"}, {"stdout", "true"}}).status().message(),
            "you must specify at least 1 command");
  EXPECT_EQ(parse({{"command", "ls"}, {"stdout", "true"}}).status().message(),
            "a container name must be specified for pod p, choose one of: [a b]");
  EXPECT_EQ(parse({{"command", "ls"}, {"container", "z"}, {"stdout", "true"}}).status().message(),
            "container z is not valid for pod p");
  EXPECT_EQ(parse({{"command", "ls"}, {"container", "b"}, {"stdout", "true"}}).status().message(),
            "container not found (\"b\")");
}

TEST(PodExecTest, SetupFromPodReadsEnvironmentAndVolumes) {
  Json pod = Json::parse(R"({
    "metadata": {"name": "web-0", "namespace": "team", "uid": "u1", "labels": {"app": "web"}},
    "spec": {"nodeName": "node-1",
      "containers": [{"name": "web", "image": "nginx:1.27", "workingDir": "/srv",
        "env": [{"name": "LITERAL", "value": "v"},
                {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
                {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "pw"}}}],
        "volumeMounts": [{"name": "conf", "mountPath": "/etc/conf"},
                         {"name": "one", "mountPath": "/etc/one.txt", "subPath": "b"},
                         {"name": "scratch", "mountPath": "/scratch"}]}],
      "volumes": [{"name": "conf", "configMap": {"name": "settings"}},
                  {"name": "one", "configMap": {"name": "settings"}},
                  {"name": "scratch", "emptyDir": {}}]},
    "status": {"podIP": "127.23.0.5"}})");
  ObjectLookup lookup = [](const std::string& plural, const std::string& ns,
                           const std::string& name) -> std::optional<Json> {
    if (ns != "team") return std::nullopt;
    if (plural == "configmaps" && name == "settings") {
      return Json{{"data", {{"a", "1"}, {"b", "2"}}}};
    }
    if (plural == "secrets" && name == "creds") return Json{{"data", {{"pw", "czNjcjN0"}}}};
    return std::nullopt;
  };
  SandboxSetup s = SetupFromPod(pod, "web", lookup, 0);
  ContainerSandbox box(s);
  ExecResult r = box.Run({"sh", "-c", "echo $LITERAL $POD $APP $PASSWORD; pwd; cat /etc/conf/a "
                                      "/etc/one.txt; echo; ls /scratch && cat /etc/hosts | tail -n 1"},
                         "", 0);
  EXPECT_EQ(r.out, "v web-0 web s3cr3t\n/srv\n12\n127.23.0.5\tweb-0\n") << r.err;
}

}  // namespace
}  // namespace trimtab::cluster::exec
