// A small HTTP/1.0 server on a loopback socket, for the metrics endpoint and the status
// dashboard: GET only, one request per connection, served from a background thread. Small
// enough to read in one sitting; not a general web server.
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

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const std::string& path)>;

  // Listens on `host`:`port` (0: a free port) and serves `handler` until destroyed. Throws Error
  // when the address cannot be bound ("port 9464 is in use: ...").
  HttpServer(const std::string& host, int port, Handler handler);
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
  Handler handler_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace lakestream
