#!/bin/sh
# The shop with Iceberg views from nothing, on its own embedded broker: send the orders, run the
# streams, then read gold both ways: through its Delta log (lakestream query) and through its
# Iceberg metadata alone (read-iceberg.mjs, with icebird). Works in a fresh folder (argument 1,
# default a temporary one), so the example folder stays clean.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work" && cp "$here/lakestream.toml" "$work/" && cd "$work"

lakestream broker --name iceberg --topic orders:3 > broker.log 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null' EXIT
# Until it serves (a second on an idle machine; longer on a busy one), at most 30 s.
for _ in $(seq 300); do grep -q "^serving until" broker.log 2>/dev/null && break; sleep 0.1; done

lakestream produce "$here/orders.jsonl"
lakestream run
echo "== hourly_sales through its Delta log"
lakestream query -f csv "select strftime(hour, '%Y-%m-%d %H:%M') as hour, orders, revenue from hourly_sales order by hour"
echo "== hourly_sales through its Iceberg metadata (version-hint.text: v$(cat lake/hourly_sales/metadata/version-hint.text))"
node "$here/read-iceberg.mjs" lake/hourly_sales hour orders revenue
lakestream check
