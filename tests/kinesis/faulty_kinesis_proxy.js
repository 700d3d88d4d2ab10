// A loopback HTTP proxy in front of a Kinesis endpoint that does what Kinesis does under strain
// or over time, and forwards the rest:
//   throttle:      every other GetRecords is answered 400 ProvisionedThroughputExceededException
//                  (a reader past 5 reads a second per shard), and the first ListShards 400
//                  LimitExceededException;
//   expire:        every other GetRecords is answered 400 ExpiredIteratorException (an iterator
//                  older than 5 minutes); and the reads it lets through return at most 50 records
//                  (Kinesis may return fewer than asked), so that a batch takes many reads;
//   retire:SHARD:  SHARD is gone from every listing and unknown to GetShardIterator, as Kinesis
//                  forgets a closed shard once its records are past the retention period;
//   meter:         every GetRecords is let through and logged as "read MS BYTES": when it
//                  arrived (ms) and the bytes of data and partition keys it returned.
// It prints how many it refused on each refusal ("refused N").
// Usage: node faulty_kinesis_proxy.js LISTEN_PORT TARGET_PORT MODE
const http = require('http');
const forward = require('../support/http_forward.js');
const [listenPort, targetPort] = process.argv.slice(2, 4).map(Number);
const [mode, modeShard] = (process.argv[4] || 'throttle').split(':');
const agent = new http.Agent({keepAlive: true});
let getRecords = 0;
let listShards = 0;
let refused = 0;

function refuse(res, type, message) {
  refused += 1;
  console.log(`refused ${refused}`);
  res.writeHead(400, {'Content-Type': 'application/x-amz-json-1.1'});
  res.end(JSON.stringify({__type: type, message}));
}

// Forwards the request with `body` and hands Kinesis's answer to `edit` (status, parsed body)
// before sending it on.
function forwardEdited(req, res, body, edit) {
  const headers = {...req.headers, 'content-length': Buffer.byteLength(body)};
  const upstream = http.request({host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers, agent},
                                (up) => {
    let answer = '';
    up.setEncoding('utf8');
    up.on('data', (chunk) => { answer += chunk; });
    up.on('end', () => {
      let text = answer;
      if (up.statusCode === 200) text = JSON.stringify(edit(JSON.parse(answer)));
      const out = {...up.headers, 'content-length': Buffer.byteLength(text)};
      delete out['transfer-encoding'];
      res.writeHead(up.statusCode, out);
      res.end(text);
    });
  });
  upstream.on('error', () => { res.writeHead(502); res.end(); });
  upstream.end(body);
}

function withBody(req, then) {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => then(body));
}

http.createServer((req, res) => {
  const target = req.headers['x-amz-target'] || '';
  const arrived = Date.now();
  if ((mode === 'throttle' || mode === 'expire') && target.endsWith('.GetRecords') && getRecords++ % 2 === 1) {
    req.resume();
    return mode === 'expire' ? refuse(res, 'ExpiredIteratorException', 'Iterator expired')
                             : refuse(res, 'ProvisionedThroughputExceededException', 'Rate exceeded for shard');
  }
  if (mode === 'throttle' && target.endsWith('.ListShards') && listShards++ === 0) {
    req.resume();
    return refuse(res, 'LimitExceededException', 'Rate exceeded for stream');
  }
  if (mode === 'expire' && target.endsWith('.GetRecords')) {
    return withBody(req, (body) => {
      const request = JSON.parse(body);
      request.Limit = Math.min(request.Limit || 10000, 50);
      forward(req, res, targetPort, JSON.stringify(request));
    });
  }
  if (mode === 'retire' && target.endsWith('.ListShards')) {
    return withBody(req, (body) => forwardEdited(req, res, body, (answer) => {
      answer.Shards = answer.Shards.filter((shard) => shard.ShardId !== modeShard);
      return answer;
    }));
  }
  if (mode === 'retire' && target.endsWith('.GetShardIterator')) {
    return withBody(req, (body) => {
      if (JSON.parse(body).ShardId !== modeShard) return forward(req, res, targetPort, body);
      refuse(res, 'ResourceNotFoundException', `Shard ${modeShard} in stream does not exist`);
    });
  }
  if (mode === 'meter' && target.endsWith('.GetRecords')) {
    return withBody(req, (body) => forwardEdited(req, res, body, (answer) => {
      let bytes = 0;
      for (const record of answer.Records) {
        bytes += Buffer.from(record.Data, 'base64').length + Buffer.byteLength(record.PartitionKey);
      }
      console.log(`read ${arrived} ${bytes}`);
      return answer;
    }));
  }
  forward(req, res, targetPort);
}).listen(listenPort, '127.0.0.1');
