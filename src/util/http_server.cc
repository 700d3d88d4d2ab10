#include "util/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/error.h"

namespace lakestream {

namespace {

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
  }
}

void send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away; nothing to do
    sent += static_cast<size_t>(n);
  }
}

constexpr size_t kMaxBody = 1 << 20;

// The value of header `name` (lower case) in `headers`, or "".
std::string header_value(const std::string& headers, const std::string& name) {
  std::string lower;
  for (char c : headers) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  size_t begin = at + 3 + name.size();
  size_t end = headers.find("\r\n", begin);
  std::string value = headers.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  while (!value.empty() && value.front() == ' ') value.erase(0, 1);
  return value;
}

}  // namespace

HttpServer::HttpServer(const std::string& host, int port, Handler handler)
    : HttpServer(host, port, RequestHandler([get = std::move(handler)](const HttpRequest& request) {
        if (request.method != "GET") return HttpResponse{405, "text/plain; charset=utf-8", "only GET is served\n"};
        return get(request.path);
      })) {}

HttpServer::HttpServer(const std::string& host, int port, RequestHandler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw Error(std::string("cannot open a socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    ::close(listen_fd_);
    throw Error("cannot listen on " + host + ": not an IPv4 address (use e.g. 127.0.0.1 or 0.0.0.0)");
  }
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0) {
    std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw Error("cannot listen on " + host + ":" + std::to_string(port) + ": " + why +
                (port ? "; choose another port, or 0 for any free one" : ""));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

HttpServer::~HttpServer() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

void HttpServer::serve() {
  while (!stopping_) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;  // wake up now and then to see whether to stop
    int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client);
    ::close(client);
  }
}

void HttpServer::answer(int client) {
  // Read the headers (up to 8 KiB), then the body Content-Length announces; 2 s at most per read.
  std::string request;
  char buf[4096];
  auto read_more = [&] {
    pollfd pfd{client, POLLIN, 0};
    if (::poll(&pfd, 1, 2000) <= 0) return false;
    ssize_t n = ::recv(client, buf, sizeof buf, 0);
    if (n <= 0) return false;
    request.append(buf, static_cast<size_t>(n));
    return true;
  };
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192)
    if (!read_more()) break;
  size_t headers_end = request.find("\r\n\r\n");
  HttpResponse response;
  std::string line = request.substr(0, request.find("\r\n"));
  size_t sp1 = line.find(' '), sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
  size_t body_size = 0;
  if (headers_end != std::string::npos) {
    std::string length = header_value(request.substr(0, headers_end), "content-length");
    body_size = length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
  }
  if (headers_end == std::string::npos || sp1 == std::string::npos || sp2 == std::string::npos) {
    response = {400, "text/plain; charset=utf-8", "not an HTTP request\n"};
  } else if (body_size > kMaxBody) {
    response = {413, "text/plain; charset=utf-8", "the body is over 1 MiB\n"};
  } else {
    while (request.size() < headers_end + 4 + body_size)
      if (!read_more()) break;
    HttpRequest parsed{line.substr(0, sp1), line.substr(sp1 + 1, sp2 - sp1 - 1), request.substr(headers_end + 4, body_size)};
    try {
      response = handler_(parsed);
    } catch (const std::exception& e) {
      response = {500, "text/plain; charset=utf-8", std::string(e.what()) + "\n"};
    }
  }
  send_all(client, "HTTP/1.0 " + std::to_string(response.status) + " " + reason(response.status) +
                       "\r\nContent-Type: " + response.content_type +
                       "\r\nContent-Length: " + std::to_string(response.body.size()) +
                       "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + response.body);
}

}  // namespace lakestream
