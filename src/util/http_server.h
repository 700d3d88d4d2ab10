// A small HTTP/1.0 server on a loopback socket, for the metrics endpoint, the status dashboard
// and the embedded schema registry: one request per connection (GET, or a method with a body
// of at most 1 MiB), served from a background thread. Small enough to read in one sitting; not
// a general web server.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace lakestream {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // with its query string
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const std::string& path)>;
  using RequestHandler = std::function<HttpResponse(const HttpRequest& request)>;

  // Listens on `host`:`port` (0: a free port) and serves `handler` until destroyed. Throws Error
  // when the address cannot be bound ("port 9464 is in use: ..."). `handler` sees GET requests
  // only; other methods are answered 405.
  HttpServer(const std::string& host, int port, Handler handler);
  // The same, for a handler that takes every method and the request's body.
  HttpServer(const std::string& host, int port, RequestHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port it listens on (the one chosen when 0 was asked).
  int port() const { return port_; }

 private:
  void serve();
  void answer(int client);

  int listen_fd_ = -1;
  int port_ = 0;
  RequestHandler handler_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace lakestream
