#!/bin/sh
# The shop demo with its tables on an object store: starts an S3 emulator (s3rver, which
# scripts/setup installs into .deps/npm) or Azurite (with `azure` as argument 2), points the
# standard variables at it, and runs `lakestream demo --lake s3://lake/demo` (or az://...).
# For a real bucket, skip the emulator: set AWS_* or AZURE_STORAGE_* and run the demo line.
# Usage: run.sh [WORK_FOLDER] [s3|azure]   (or STORE=azure run.sh)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
store="${2:-${STORE:-s3}}"
bin="$here/../../.deps/npm/node_modules/.bin"
[ -x "$bin/s3rver" ] || { echo "the emulators are missing: run scripts/setup first" >&2; exit 1; }
mkdir -p "$work" && cd "$work"
# The emulator's data, outside WORK_FOLDER: it may still be writing there while it stops.
data="$(mktemp -d)"

# A free loopback port.
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
if [ "$store" = azure ]; then
  "$bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$port" --silent --disableTelemetry --location "$data" \
    > emulator.log 2>&1 &
  lake="az://lake/demo"
  # Azurite's well-known development account (not a secret).
  key="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
  export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$key;BlobEndpoint=http://127.0.0.1:$port/devstoreaccount1;"
else
  NODE_OPTIONS=--openssl-legacy-provider "$bin/s3rver" --directory "$data" --address 127.0.0.1 --port "$port" \
    --silent --no-vhost-buckets --configure-bucket lake > emulator.log 2>&1 &
  lake="s3://lake/demo"
  # s3rver's fixed credentials.
  export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL="http://127.0.0.1:$port"
fi
emulator=$!
trap 'kill $emulator 2>/dev/null; sleep 1; rm -rf "$data" 2>/dev/null || :' EXIT
for _ in $(seq 100); do
  node -e 'require("net").connect('"$port"',"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))' && break
  sleep 0.1
done
if [ "$store" = azure ]; then
  # Azure needs the container before the first blob; the demo never creates one.
  node -e '
    const crypto = require("crypto"), http = require("http");
    const [port, key] = process.argv.slice(1);
    const date = new Date().toUTCString();
    const toSign = "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-version:2021-08-06\n/devstoreaccount1/devstoreaccount1/lake\nrestype:container";
    const sig = crypto.createHmac("sha256", Buffer.from(key, "base64")).update(toSign, "utf8").digest("base64");
    http.request({host: "127.0.0.1", port, method: "PUT", path: "/devstoreaccount1/lake?restype=container",
                  headers: {"x-ms-date": date, "x-ms-version": "2021-08-06", "Authorization": "SharedKey devstoreaccount1:" + sig}},
                 (r) => process.exit(r.statusCode === 201 || r.statusCode === 409 ? 0 : 1)).end();' "$port" "$key"
fi

lakestream demo --dir "$work/demo" --lake "$lake"
