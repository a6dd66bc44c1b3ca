// Issue 27: at the descriptor limit the accept loop spun at 100 % CPU and wrote 182 MB of log in
// 10 s. A failed accept now backs off (doubling to a cap) and is logged once per interval.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "adapters/http/server.h"

namespace trimtab::http {
namespace {

// Holds the soft descriptor limit low and fills the table up to it; frees everything on Release.
class DescriptorExhaustion {
 public:
  DescriptorExhaustion() {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit low = saved_;
    low.rlim_cur = 512;
    ok_ = setrlimit(RLIMIT_NOFILE, &low) == 0;
    while (ok_) {
      int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0) break;
      held_.push_back(fd);
    }
  }
  ~DescriptorExhaustion() { Release(); }
  void Release() {
    for (int fd : held_) close(fd);
    held_.clear();
    setrlimit(RLIMIT_NOFILE, &saved_);
  }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
  std::vector<int> held_;
};

TEST(HttpServerAcceptTest, Issue27BacksOffAndLogsOnceWhenDescriptorsRunOut) {
  auto server = HttpServer::Create(
      {.address = "127.0.0.1", .port = 0, .threads = 1,
       .accept_retry_min = std::chrono::milliseconds(10),
       .accept_retry_max = std::chrono::milliseconds(100)},
      [](const HttpRequest&) { return HttpResponse::Text(200, "ok\n"); });
  ASSERT_TRUE(server.ok()) << server.status().message();

  // The client's socket exists before the table is full; connecting needs no new descriptor.
  int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(client, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>((*server)->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

  DescriptorExhaustion exhaustion;
  if (!exhaustion.ok()) GTEST_SKIP() << "cannot lower RLIMIT_NOFILE";
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  // The kernel completed the handshake; every accept now fails with EMFILE.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const HttpServerStats during = (*server)->stats();
  exhaustion.Release();

  // 10, 20, 40, 80, 100, 100 ... ms: a handful of attempts in 400 ms, not a spin.
  EXPECT_GE(during.accept_failures, 2u);
  EXPECT_LE(during.accept_failures, 12u);
  EXPECT_EQ(during.accept_failure_logs, 1u);

  // Once descriptors are back the pending connection is served.
  const std::string request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(write(client, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  timeval tv{.tv_sec = 5, .tv_usec = 0};
  setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string reply;
  char buf[512];
  ssize_t n;
  while ((n = read(client, buf, sizeof buf)) > 0) reply.append(buf, static_cast<size_t>(n));
  close(client);
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("ok"), std::string::npos);
}

}  // namespace
}  // namespace trimtab::http
