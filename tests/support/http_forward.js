// What the tests' HTTP proxies (storage/flaky_proxy.js, kinesis/throttling_proxy.js) do with a
// request they let through: forward it to 127.0.0.1:targetPort over kept-alive connections, as
// a cloud service's front end keeps them, and answer 502 when the target is gone.
const http = require('http');
const agent = new http.Agent({keepAlive: true});

// With `body`, that body is sent instead of the request's own (read already by the caller).
module.exports = function forward(req, res, targetPort, body) {
  const headers = {...req.headers};
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  const upstream = http.request({host: '127.0.0.1', port: targetPort, method: req.method, path: req.url,
                                 headers, agent}, (up) => {
    res.writeHead(up.statusCode, up.headers);
    up.pipe(res);
  });
  upstream.on('error', () => { res.writeHead(502); res.end(); });
  if (body !== undefined) upstream.end(body);
  else req.pipe(upstream);
};
