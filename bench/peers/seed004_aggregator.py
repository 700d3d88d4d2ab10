#!/usr/bin/python3
"""The peer of lakestream's clickstream benchmark: the hand-written aggregator of the hands-on
lab (seed 004), as its users write it: one consumer over all partitions, json.loads per record,
a watermark of the newest event time seen minus 60 s, 1-minute windows of revenue and count,
events deduplicated by event_id within their window, and windows emitted once the watermark
passes their end. It reads the topic to the end as it is when it starts, then prints one line:
"<events read> <late dropped> <windows emitted>".

Run by `lakestream bench` with Debian's python3 and python3-confluent-kafka (librdkafka).
Usage: seed004_aggregator.py BOOTSTRAP TOPIC
"""
import json
import sys
from datetime import datetime, timedelta, timezone

from confluent_kafka import Consumer, TopicPartition

WINDOW = timedelta(minutes=1)
DELAY = timedelta(seconds=60)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def window_start(t):
    return t - timedelta(microseconds=(t - EPOCH) // timedelta(microseconds=1) % (WINDOW // timedelta(microseconds=1)))


def event_time(value):
    """An ISO-8601 string, or milliseconds since the epoch as a number (as Java producers send)."""
    if isinstance(value, (int, float)):
        return EPOCH + timedelta(milliseconds=value)
    return datetime.fromisoformat(value)


def main(bootstrap, topic):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "seed004-aggregator",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 10})
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    ends = {}
    for p in partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
        if high > low:
            ends[p] = high
    consumer.assign([TopicPartition(topic, p, 0) for p in ends])
    windows = {}  # start -> [revenue, count, event ids]
    max_event_time = None
    read = late = emitted = 0
    while ends:
        for msg in consumer.consume(10000, timeout=1.0):
            if msg.error():
                continue
            p = msg.partition()
            if p in ends and msg.offset() >= ends[p] - 1:
                del ends[p]
            read += 1
            event = json.loads(msg.value())
            t = event_time(event["event_time"])
            if max_event_time is None or t > max_event_time:
                max_event_time = t
            watermark = max_event_time - DELAY
            start = window_start(t)
            if start + WINDOW <= watermark:
                late += 1
                continue
            w = windows.setdefault(start, [0.0, 0, set()])
            if event["event_id"] not in w[2]:
                w[2].add(event["event_id"])
                w[0] += event["amount"] or 0.0
                w[1] += 1
            for s in [s for s in windows if s + WINDOW <= watermark]:
                del windows[s]
                emitted += 1
    consumer.close()
    print(read, late, emitted)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
