#!/bin/sh
# The shop demo with its tables on an object store: starts an S3 emulator (s3rver) or Azurite
# (with `azure` as argument 2), points the standard variables at it (with-store-emulator, beside
# this script: the emulator from PATH, `npm install -g s3rver azurite`), runs `lakestream demo
# --lake s3://lake/demo` (or az://...) and queries a table while the emulator runs. The emulator
# keeps its data only while it runs: when this script ends, the tables are gone. For tables that
# stay, skip the emulator: set AWS_* or AZURE_STORAGE_* for a real bucket and run the demo line.
# Usage: run.sh [WORK_FOLDER] [s3|azure]   (or STORE=azure run.sh)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
store="${2:-${STORE:-s3}}"
mkdir -p "$work" && cd "$work"
"$here/with-store-emulator" "$store" sh -c '
  lakestream demo --dir "$1/demo" --lake "$STORE_URL/demo" || exit
  echo
  echo "== hourly_sales on the emulator, read back while it still runs"
  lakestream query -p "$1/demo/lakestream.toml" "select * from hourly_sales order by hour"' sh "$work"
echo
echo "The emulator has stopped, and its data went with it: the tables above are gone, so the query"
echo "line the demo printed no longer works. To keep the tables, run the demo on a real bucket:"
if [ "$store" = azure ]; then
  echo "  AZURE_STORAGE_CONNECTION_STRING=... lakestream demo --lake az://CONTAINER/demo"
else
  echo "  AWS_REGION=... AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... lakestream demo --lake s3://BUCKET/demo"
fi
