#!/bin/sh
# The customers change stream from nothing, on its own embedded broker: send the changes (into
# three partitions, so they arrive out of order), run, query silver, check it against the replay
# of the change log in bronze; then the changes a lagging partition held back (older than what
# silver has, one sent twice) and again. Works in a fresh folder (argument 1, default a temporary one).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work" && cp "$here/lakestream.toml" "$work/" && cd "$work"

lakestream broker --name cdc --topic shop.public.customers:3 > broker.log 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null' EXIT
# Until it serves (a second on an idle machine; longer on a busy one), at most 30 s.
for _ in $(seq 300); do grep -q "^serving until" broker.log 2>/dev/null && break; sleep 0.1; done

lakestream produce "$here/changes.jsonl"
lakestream run
lakestream query -f csv "select id, name, email, _op, _source_lsn from customers order by id"
lakestream check
# A partition that fell behind: customer 4's create (older than its delete), an update of
# customer 1 older than the one silver has, and a resend. None changes silver.
lakestream produce "$here/late-changes.jsonl"
lakestream run
lakestream query -f csv "select id, name, email, _op, _source_lsn from customers order by id"
lakestream query -f csv "select id, _op, _source_lsn from customers_deleted order by id"
lakestream check
