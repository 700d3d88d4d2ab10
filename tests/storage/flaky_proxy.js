// A loopback HTTP proxy that answers 503 Service Unavailable to the first N requests (all when
// N is -1) and forwards the rest to the target: the storage tests' throttling and outages. With
// BURST_SECONDS, each SIGUSR1 also starts a burst: every request answered 503 for that long (the
// soak's store outage, sent while a service runs). Each SIGUSR2 prints the requests forwarded
// since the last one, by method and kind of object (what a run asks of its store, per window).
// Usage: node flaky_proxy.js LISTEN_PORT TARGET_PORT N [BURST_SECONDS]
const http = require('http');
const forward = require('../support/http_forward.js');
const [listenPort, targetPort, failures, burstSeconds] = process.argv.slice(2).map(Number);
let seen = 0;
let burstUntil = 0;
let burstAnswers = 0;
let forwarded = {};
// "GET log", "PUT data", "LIST", ...: the kind of object from its name, enough to see what grows.
function requestKind(req) {
  const url = new URL(req.url, 'http://proxy');
  if (url.searchParams.get('comp') === 'list' || url.searchParams.has('list-type')) return 'LIST';
  const name = url.pathname;
  let kind = 'data';
  if (name.endsWith('_last_checkpoint')) kind = 'last_checkpoint';
  else if (name.includes('/_delta_log/') && name.endsWith('.json')) kind = 'log';
  else if (name.includes('/_delta_log/')) kind = 'checkpoint';
  return `${req.method} ${kind}`;
}
process.on('SIGUSR2', () => {
  console.log(`${new Date().toISOString()} forwarded ${JSON.stringify(forwarded)}`);
  forwarded = {};
});
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
  const kind = requestKind(req);
  forwarded[kind] = (forwarded[kind] || 0) + 1;
  forward(req, res, targetPort);
}).listen(listenPort, '127.0.0.1');
