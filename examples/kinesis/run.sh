#!/bin/sh
# The clickstream lab's orders through a Kinesis data stream into a lake on S3, from nothing: starts
# kinesalite (a Kinesis emulator) and s3rver (an S3 emulator), puts the events with the AWS SDK
# (PartitionKey = customer_id), runs, queries revenue per minute and bronze's days and shards, and
# reconciles gold with a batch recount of bronze (check). The emulators come from PATH
# (`npm install -g kinesalite s3rver`, and `npm install @aws-sdk/client-kinesis
# @smithy/node-http-handler` for the producer), else from the source tree's .deps/npm. They keep
# their data in memory or a temporary folder: when this script ends, the stream and the lake go.
# Works in a fresh folder (argument 1, default a temporary one).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work" && cp "$here/lakestream.toml" "$work/" && cd "$work"

if command -v kinesalite > /dev/null 2>&1; then
  bin="$(dirname "$(command -v kinesalite)")"
else
  bin="$here/../../.deps/npm/node_modules/.bin"
fi
for program in kinesalite s3rver; do
  [ -x "$bin/$program" ] || { echo "$program is not on PATH: npm install -g kinesalite s3rver (or run scripts/setup in the source tree)" >&2; exit 1; }
done
export NODE_PATH="$bin/..${NODE_PATH:+:$NODE_PATH}"  # the producer's AWS SDK, beside the emulators
data="$(mktemp -d)"
pids=""
trap 'kill $pids 2>/dev/null; sleep 1; rm -rf "$data"' EXIT

# Starts emulator NAME on a free loopback port (its command follows, PORT standing for the port)
# and waits until it listens; sets $port.
start() {
  name="$1"
  shift
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  command=$(echo "$*" | sed "s/PORT/$port/")
  $command > "$data/$name.log" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 100); do
    node -e 'require("net").connect('"$port"',"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))' && return
    sleep 0.1
  done
  echo "$name did not listen on port $port; see $data/$name.log" >&2
  exit 1
}
start kinesalite "$bin/kinesalite" --port PORT --createStreamMs 0
export AWS_ENDPOINT_URL_KINESIS="http://127.0.0.1:$port"
# (s3rver's continuation tokens use a cipher OpenSSL 3 keeps in its legacy provider.)
start s3rver env NODE_OPTIONS=--openssl-legacy-provider "$bin/s3rver" --directory "$data/s3" --address 127.0.0.1 --port PORT \
  --silent --no-vhost-buckets --configure-bucket lake
export AWS_ENDPOINT_URL_S3="http://127.0.0.1:$port"
# s3rver's fixed credentials; kinesalite takes any.
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1

node "$here/put-records.js" orders "$here/events.jsonl" customer_id --create 2
lakestream run
lakestream query "select minute, orders, round(revenue, 2) as revenue from revenue_per_minute order by minute limit 5"
echo "== bronze by event day (the dt folders), and by shard"
lakestream query -f csv "select dt, count(*) as events from bronze_orders group by dt order by dt"
lakestream query -f csv "select kinesis_shard_id as shard, count(*) as events, min(\"offset\") as first, max(\"offset\") as last from bronze_orders group by 1 order by 1"
lakestream check
