#!/bin/sh
# The clickstream lab from nothing, on its own embedded broker: send the events (5% late by up
# to 3 minutes, 2% sent twice), run, query revenue per minute, reconcile it with a batch recount
# of bronze (check), then replay the stream with a 200 s watermark into a second table and
# compare what each dropped. Works in a fresh folder (argument 1, default a temporary one).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work" && cp "$here/lakestream.toml" "$work/" && cd "$work"

lakestream broker --name clickstream --topic clickstream:3 > broker.log 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null' EXIT
# Until it serves (a second on an idle machine; longer on a busy one), at most 30 s.
for _ in $(seq 300); do grep -q "^serving until" broker.log 2>/dev/null && break; sleep 0.1; done

lakestream produce "$here/events.jsonl"
lakestream run
lakestream query "select minute, orders, round(revenue, 2) as revenue from revenue_per_minute order by minute limit 5"
lakestream check
# The same stream with a watermark that waits 200 s: late events now count, and the gap closes.
lakestream replay revenue_per_minute --into revenue_per_minute_200s --watermark 200s
# Over the minutes both have written: the events bronze holds (each once), and what each counted.
lakestream query -f csv "select count(distinct b.event_id) as events, (select sum(orders) from revenue_per_minute
                         where minute <= (select max(minute) from revenue_per_minute_200s)) as counted_60s,
                         (select sum(orders) from revenue_per_minute_200s) as counted_200s
                  from bronze_clicks b
                  where date_trunc('minute', b.event_time) <= (select max(minute) from revenue_per_minute_200s)"
lakestream check
