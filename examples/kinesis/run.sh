#!/bin/sh
# The clickstream lab's orders through a Kinesis data stream into a lake on S3, from nothing: starts
# kinesalite (a Kinesis emulator) and s3rver (an S3 emulator, through ../object-storage/
# with-store-emulator), puts the events with the AWS SDK (PartitionKey = customer_id), runs,
# queries revenue per minute and bronze's days, and reconciles gold with a batch recount of bronze
# (check). The emulators come from PATH (`npm install -g kinesalite s3rver`, and
# `npm install @aws-sdk/client-kinesis` for the producer), else from the source tree's .deps/npm.
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
[ -x "$bin/kinesalite" ] || { echo "kinesalite is not on PATH: npm install -g kinesalite (or run scripts/setup in the source tree)" >&2; exit 1; }
export NODE_PATH="$bin/..${NODE_PATH:+:$NODE_PATH}"  # the producer's AWS SDK, beside the emulator
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
"$bin/kinesalite" --port "$port" --createStreamMs 0 > kinesalite.log 2>&1 &
kinesalite=$!
trap 'kill $kinesalite 2>/dev/null' EXIT
for _ in $(seq 100); do
  node -e 'require("net").connect('"$port"',"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))' && break
  sleep 0.1
done
export AWS_ENDPOINT_URL_KINESIS="http://127.0.0.1:$port" AWS_REGION=us-east-1

"$here/../object-storage/with-store-emulator" s3 sh -c '
  set -e
  export AWS_ENDPOINT_URL_S3="$AWS_ENDPOINT_URL"  # the S3 emulator; Kinesis has its own
  node "$1/put-records.js" orders "$1/../clickstream/events.jsonl" customer_id --create 2
  lakestream run
  lakestream query "select minute, orders, round(revenue, 2) as revenue from revenue_per_minute order by minute limit 5"
  echo "== bronze by event day (the dt folders), and by shard"
  lakestream query -f csv "select dt, count(*) as events from bronze_orders group by dt order by dt"
  lakestream query -f csv "select partition as shard, count(*) as events, min(\"offset\") as first, max(\"offset\") as last from bronze_orders group by 1 order by 1"
  lakestream check' sh "$here"
