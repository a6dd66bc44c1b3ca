// TLS tests for HttpClient against a real `openssl s_server` with mutual TLS.
//
// At suite start a CA, a server certificate for 127.0.0.1 and a client certificate (both signed
// by the CA) are generated with the openssl command line in a temp dir; `openssl s_server -www
// -Verify 1` (which requires a client certificate) then runs as a child process on a free
// loopback port. The suite is skipped when the openssl binary is missing.
#include "adapters/http/client.h"
#include "tests/support/subprocess.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>


namespace trimtab::http {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

bool RunShell(const std::string& command) {
  const int rc = std::system(command.c_str());
  return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A port that was free a moment ago (the caller retries if it got taken meanwhile).
int PickFreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = -1;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

bool CanConnect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

class HttpClientTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_reason_ = new std::string;
    if (!RunShell("command -v openssl >/dev/null 2>&1")) {
      *skip_reason_ = "the openssl command line tool is not installed";
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "trimtab-tls-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      *skip_reason_ = "mkdtemp failed";
      return;
    }
    dir_ = new fs::path(pattern);
    if (!GenerateCerts()) {
      ADD_FAILURE() << "generating certificates failed; see " << (*dir_ / "openssl.log");
      return;
    }
    if (!StartServer()) {
      ADD_FAILURE() << "openssl s_server did not start; see " << (*dir_ / "s_server.log");
      return;
    }
    ready_ = true;
  }

  static void TearDownTestSuite() {
    StopServer();
    if (dir_ != nullptr) {
      std::error_code ec;
      fs::remove_all(*dir_, ec);
    }
    delete dir_;
    dir_ = nullptr;
    delete skip_reason_;
    skip_reason_ = nullptr;
    ready_ = false;
  }

  void SetUp() override {
    if (!skip_reason_->empty()) GTEST_SKIP() << *skip_reason_;
    ASSERT_TRUE(ready_) << "TLS test server setup failed";
  }

  static fs::path File(const char* name) { return *dir_ / name; }

  static bool GenerateCerts() {
    const std::string d = ShellQuote(dir_->string());
    const std::string log = ShellQuote((*dir_ / "openssl.log").string());
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    {
      std::ofstream(*dir_ / "server.ext") << "basicConstraints=CA:FALSE\n"
                                             "keyUsage=critical,digitalSignature\n"
                                             "extendedKeyUsage=serverAuth\n"
                                             "subjectAltName=IP:127.0.0.1\n";
      std::ofstream(*dir_ / "client.ext") << "basicConstraints=CA:FALSE\n"
                                             "keyUsage=critical,digitalSignature\n"
                                             "extendedKeyUsage=clientAuth\n";
    }
    const std::string script =
        "cd " + d + " && {" +
        // CA.
        " openssl req -x509" + ec +
        " -keyout ca.key -out ca.crt -days 2 -subj /CN=trimtab-test-ca"
        " -addext basicConstraints=critical,CA:TRUE"
        " -addext keyUsage=critical,keyCertSign,cRLSign &&"
        // Server certificate for 127.0.0.1.
        " openssl req -new" + ec +
        " -keyout server.key -out server.csr -subj /CN=127.0.0.1 &&"
        " openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -set_serial 2 -days 2"
        " -extfile server.ext -out server.crt &&"
        // Client certificate.
        " openssl req -new" + ec +
        " -keyout client.key -out client.csr -subj /CN=trimtab-test-client &&"
        " openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -set_serial 3 -days 2"
        " -extfile client.ext -out client.crt;"
        " } >" + log + " 2>&1";
    return RunShell(script);
  }

  // Starts s_server on a free port; retries with a new port if it exits (port taken).
  static bool StartServer() {
    const std::string log = (*dir_ / "s_server.log").string();
    for (int attempt = 0; attempt < 5; ++attempt) {
      const int port = PickFreePort();
      if (port <= 0) continue;
      const std::string accept = "127.0.0.1:" + std::to_string(port);
      const std::string cert = File("server.crt").string();
      const std::string key = File("server.key").string();
      const std::string ca = File("ca.crt").string();
      std::vector<std::string> args = {"openssl", "s_server", "-accept", accept, "-cert", cert,
                                       "-key",    key,        "-CAfile", ca,     "-Verify", "1",
                                       "-www",    "-quiet"};
      StatusOr<pid_t> spawned = testing::SpawnLogged(std::move(args), log);
      if (!spawned.ok()) return false;
      const pid_t pid = *spawned;

      // Wait (bounded) until it accepts connections or exits.
      bool exited = false;
      for (int i = 0; i < 100; ++i) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
          exited = true;
          break;
        }
        if (CanConnect(port)) {
          server_pid_ = pid;
          port_ = port;
          return true;
        }
        std::this_thread::sleep_for(50ms);
      }
      if (!exited) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
    return false;
  }

  static void StopServer() {
    if (server_pid_ > 0) {
      ::kill(server_pid_, SIGTERM);
      ::waitpid(server_pid_, nullptr, 0);
      server_pid_ = -1;
    }
  }

  static std::string Url() { return "https://127.0.0.1:" + std::to_string(port_) + "/"; }

  static StatusOr<ClientResponse> Get(TlsOptions tls) {
    HttpClientOptions options;
    options.tls = std::move(tls);
    options.default_timeout = 10s;
    options.connect_timeout = 5s;
    StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(std::move(options));
    if (!client.ok()) return client.status();
    return client.value()->Do({.method = "GET", .url = Url()});
  }

  static TlsOptions WithClientCertFiles(TlsOptions tls) {
    tls.client_cert_file = File("client.crt").string();
    tls.client_key_file = File("client.key").string();
    return tls;
  }

  static TlsOptions WithClientCertData(TlsOptions tls) {
    tls.client_cert_data = ReadFile(File("client.crt"));
    tls.client_key_data = ReadFile(File("client.key"));
    return tls;
  }

  static void ExpectOk(const StatusOr<ClientResponse>& response) {
    ASSERT_TRUE(response.ok()) << response.status().ToString();
    EXPECT_EQ(response.value().status, 200);
    EXPECT_FALSE(response.value().body.empty());
  }

  static inline std::string* skip_reason_ = nullptr;
  static inline fs::path* dir_ = nullptr;
  static inline bool ready_ = false;
  static inline pid_t server_pid_ = -1;
  static inline int port_ = 0;
};

TEST_F(HttpClientTlsTest, CaFileAndClientCertFiles) {
  TlsOptions tls;
  tls.ca_file = File("ca.crt").string();
  ExpectOk(Get(WithClientCertFiles(tls)));
}

TEST_F(HttpClientTlsTest, CaDataAndClientCertData) {
  TlsOptions tls;
  tls.ca_data = ReadFile(File("ca.crt"));
  ExpectOk(Get(WithClientCertData(tls)));
}

TEST_F(HttpClientTlsTest, CaFileAndClientCertData) {
  TlsOptions tls;
  tls.ca_file = File("ca.crt").string();
  ExpectOk(Get(WithClientCertData(tls)));
}

TEST_F(HttpClientTlsTest, CaDataAndClientCertFiles) {
  TlsOptions tls;
  tls.ca_data = ReadFile(File("ca.crt"));
  ExpectOk(Get(WithClientCertFiles(tls)));
}

TEST_F(HttpClientTlsTest, UnknownCaFailsVerification) {
  // No CA: the system trust store does not know the test CA.
  StatusOr<ClientResponse> response = Get(WithClientCertFiles({}));
  ASSERT_FALSE(response.ok()) << "status " << response.value().status;
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable) << response.status().ToString();
  const std::string message = Lower(response.status().message());
  EXPECT_TRUE(message.find("certificate") != std::string::npos ||
              message.find("ssl") != std::string::npos || message.find("tls") != std::string::npos)
      << response.status().ToString();
}

TEST_F(HttpClientTlsTest, SkipVerifyWithoutClientCertIsRefused) {
  TlsOptions tls;
  tls.insecure_skip_verify = true;
  StatusOr<ClientResponse> response = Get(tls);
  ASSERT_FALSE(response.ok()) << "status " << response.value().status;
  // A TLS 1.3 server reports the missing certificate after the handshake (a read error); a TLS
  // 1.2 one fails the handshake itself. Both are transport failures.
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable) << response.status().ToString();
}

TEST_F(HttpClientTlsTest, SkipVerifyWithClientCert) {
  TlsOptions tls;
  tls.insecure_skip_verify = true;
  ExpectOk(Get(WithClientCertFiles(tls)));
}

TEST_F(HttpClientTlsTest, UnreadableClientKeyIsInvalidArgument) {
  TlsOptions tls;
  tls.ca_file = File("ca.crt").string();
  tls.client_cert_file = File("client.crt").string();
  tls.client_key_file = File("missing.key").string();
  StatusOr<ClientResponse> response = Get(tls);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument)
      << response.status().ToString();
}

}  // namespace
}  // namespace trimtab::http
