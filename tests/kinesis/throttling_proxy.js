// A loopback HTTP proxy in front of a Kinesis endpoint that throttles as Kinesis does when a
// reader goes past 5 reads a second per shard: every other GetRecords is answered 400
// ProvisionedThroughputExceededException, and the first ListShards 400 LimitExceededException;
// the rest is forwarded. It prints how many it refused on each refusal ("throttled N").
// Usage: node throttling_proxy.js LISTEN_PORT TARGET_PORT
const http = require('http');
const forward = require('../support/http_forward.js');
const [listenPort, targetPort] = process.argv.slice(2).map(Number);
let getRecords = 0;
let listShards = 0;
let throttled = 0;

function refuse(res, type) {
  throttled += 1;
  console.log(`throttled ${throttled}`);
  res.writeHead(400, {'Content-Type': 'application/x-amz-json-1.1'});
  res.end(JSON.stringify({__type: type, message: 'Rate exceeded for shard'}));
}

http.createServer((req, res) => {
  const target = req.headers['x-amz-target'] || '';
  if (target.endsWith('.GetRecords') && getRecords++ % 2 === 1) {
    req.resume();
    return refuse(res, 'ProvisionedThroughputExceededException');
  }
  if (target.endsWith('.ListShards') && listShards++ === 0) {
    req.resume();
    return refuse(res, 'LimitExceededException');
  }
  forward(req, res, targetPort);
}).listen(listenPort, '127.0.0.1');
