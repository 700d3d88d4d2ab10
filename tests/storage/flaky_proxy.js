// A loopback HTTP proxy that answers 503 Service Unavailable to the first N requests (all when
// N is -1) and forwards the rest to the target: the storage tests' throttling and outages.
// Usage: node flaky_proxy.js LISTEN_PORT TARGET_PORT N
const http = require('http');
const [listenPort, targetPort, failures] = process.argv.slice(2).map(Number);
let seen = 0;
http.createServer((req, res) => {
  seen += 1;
  if (failures < 0 || seen <= failures) {
    req.resume();
    res.writeHead(503, {'Content-Type': 'application/xml'});
    res.end('<?xml version="1.0"?><Error><Code>ServerBusy</Code><Message>try again</Message></Error>');
    return;
  }
  const upstream = http.request({host: '127.0.0.1', port: targetPort, method: req.method, path: req.url,
                                 headers: req.headers}, (up) => {
    res.writeHead(up.statusCode, up.headers);
    up.pipe(res);
  });
  upstream.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(upstream);
}).listen(listenPort, '127.0.0.1');
