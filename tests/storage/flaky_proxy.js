// A loopback HTTP proxy that answers 503 Service Unavailable to the first N requests (all when
// N is -1) and forwards the rest to the target: the storage tests' throttling and outages. With
// BURST_SECONDS, each SIGUSR1 also starts a burst: every request answered 503 for that long (the
// soak's store outage, sent while a service runs).
// Usage: node flaky_proxy.js LISTEN_PORT TARGET_PORT N [BURST_SECONDS]
const http = require('http');
const forward = require('../support/http_forward.js');
const [listenPort, targetPort, failures, burstSeconds] = process.argv.slice(2).map(Number);
let seen = 0;
let burstUntil = 0;
let burstAnswers = 0;
if (burstSeconds > 0) {
  process.on('SIGUSR1', () => {
    burstUntil = Date.now() + burstSeconds * 1000;
    console.log(`${new Date().toISOString()} burst: 503 to every request for ${burstSeconds} s`);
    setTimeout(() => console.log(`${new Date().toISOString()} burst over: ${burstAnswers} requests answered 503`),
               burstSeconds * 1000);
  });
}
http.createServer((req, res) => {
  seen += 1;
  const bursting = Date.now() < burstUntil;
  if (bursting) burstAnswers += 1;
  if (bursting || failures < 0 || seen <= failures) {
    req.resume();
    res.writeHead(503, {'Content-Type': 'application/xml'});
    res.end('<?xml version="1.0"?><Error><Code>ServerBusy</Code><Message>try again</Message></Error>');
    return;
  }
  forward(req, res, targetPort);
}).listen(listenPort, '127.0.0.1');
