// A loopback HTTP proxy in front of a Kinesis endpoint that answers every other GetRecords with
// an error Kinesis gives, and forwards the rest:
//   throttle: 400 ProvisionedThroughputExceededException (a reader past 5 reads a second per
//             shard), and the first ListShards 400 LimitExceededException;
//   expire:   400 ExpiredIteratorException (an iterator older than 5 minutes); and the reads it
//             lets through return at most 50 records (Kinesis may return fewer than asked), so
//             that a batch takes many reads of a shard.
// It prints how many it refused on each refusal ("refused N").
// Usage: node faulty_kinesis_proxy.js LISTEN_PORT TARGET_PORT throttle|expire
const http = require('http');
const forward = require('../support/http_forward.js');
const [listenPort, targetPort] = process.argv.slice(2, 4).map(Number);
const mode = process.argv[4] || 'throttle';
let getRecords = 0;
let listShards = 0;
let refused = 0;

function refuse(res, type) {
  refused += 1;
  console.log(`refused ${refused}`);
  res.writeHead(400, {'Content-Type': 'application/x-amz-json-1.1'});
  res.end(JSON.stringify({__type: type, message: type === 'ExpiredIteratorException' ? 'Iterator expired'
                                                                                       : 'Rate exceeded for shard'}));
}

http.createServer((req, res) => {
  const target = req.headers['x-amz-target'] || '';
  if (target.endsWith('.GetRecords') && getRecords++ % 2 === 1) {
    req.resume();
    return refuse(res, mode === 'expire' ? 'ExpiredIteratorException' : 'ProvisionedThroughputExceededException');
  }
  if (mode === 'throttle' && target.endsWith('.ListShards') && listShards++ === 0) {
    req.resume();
    return refuse(res, 'LimitExceededException');
  }
  if (mode === 'expire' && target.endsWith('.GetRecords')) {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const request = JSON.parse(body);
      request.Limit = Math.min(request.Limit || 10000, 50);
      forward(req, res, targetPort, JSON.stringify(request));
    });
    return;
  }
  forward(req, res, targetPort);
}).listen(listenPort, '127.0.0.1');
