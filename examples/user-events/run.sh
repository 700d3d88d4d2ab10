#!/bin/sh
# The user-events pipeline from nothing, on its own embedded broker: send the events, run the
# streams, query gold, check it against a batch recount of bronze. Works in a fresh folder
# (argument 1, default a temporary one), so the example folder stays clean.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work" && cp "$here/lakestream.toml" "$work/" && cd "$work"

lakestream broker --name user-events --topic user_events:3 > broker.log 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null' EXIT
# Until it serves (a second on an idle machine; longer on a busy one), at most 30 s.
for _ in $(seq 300); do grep -q "^serving until" broker.log 2>/dev/null && break; sleep 0.1; done

lakestream produce "$here/events.jsonl"
lakestream run
lakestream query "select window_start, window_end, country, event_type, event_count, total_amount, avg_amount
                  from events_by_country where event_type = 'purchase' order by window_start, country limit 8"
# window_end is the window's end, as Spark's window.end: five minutes after window_start.
lakestream query -f csv "select count(*) as windows, count(*) filter (where window_end = window_start + interval 5 minute) as ending_5_minutes_later
                         from events_by_country"
# Bronze keeps the ingestion metadata: which micro-batch wrote each event, and when.
lakestream query -f csv "select _batch_id, count(*) as events, count(_ingested_at) as with_ingested_at
                         from bronze_user_events group by _batch_id order by _batch_id"
lakestream check
