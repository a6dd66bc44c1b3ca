#include "adapters/flink/tcp_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trimtab::flink {

Status ProbeTcp(const std::string& host, int port, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return InvalidArgumentError("TCP probe " + where + ": cannot resolve host: " + gai_strerror(rc));
  }
  Status last = UnavailableError("TCP probe " + where + ": no address");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd, POLLOUT, 0};
      rc = poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
      if (rc == 0) {
        close(fd);
        last = DeadlineExceededError("TCP probe " + where + ": timed out after " +
                                     std::to_string(timeout.count()) + " ms");
        continue;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    const int saved = errno;
    close(fd);
    if (rc == 0) {
      freeaddrinfo(found);
      return Status::Ok();
    }
    last = UnavailableError("TCP probe " + where + ": " + std::strerror(saved));
  }
  freeaddrinfo(found);
  return last;
}

StatusOr<std::pair<std::string, int>> HostPortOf(const std::string& url) {
  size_t start = url.find("://");
  if (start == std::string::npos) return InvalidArgumentError("not a URL: \"" + url + "\"");
  const std::string scheme = url.substr(0, start);
  start += 3;
  const size_t end = url.find_first_of("/?#", start);
  const std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  int port = scheme == "https" ? 443 : 80;
  std::string host = authority;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string::npos) return InvalidArgumentError("bad IPv6 host in \"" + url + "\"");
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') {
      port = std::atoi(authority.c_str() + close + 2);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string::npos) {
    host = authority.substr(0, colon);
    port = std::atoi(authority.c_str() + colon + 1);
  }
  if (host.empty() || port <= 0 || port > 65535) {
    return InvalidArgumentError("no host:port in \"" + url + "\"");
  }
  return std::make_pair(host, port);
}

}  // namespace trimtab::flink
