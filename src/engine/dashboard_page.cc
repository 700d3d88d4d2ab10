#include "engine/dashboard_page.h"

namespace lakestream {

const std::string& dashboard_page() {
  static const std::string page = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>lakestream status</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d2433; background: #f6f7f9; }
  h1 { font-size: 20px; margin: 0 0 16px; }
  h2 { font-size: 16px; margin: 24px 0 8px; }
  table { border-collapse: collapse; background: #fff; }
  td, th { padding: 4px 10px; border-bottom: 1px solid #e3e6eb; text-align: left; }
  .health { font-weight: 600; }
  .ok { color: #137333; } .behind { color: #b06000; } .idle { color: #5f6368; } .failing { color: #c5221f; }
  .late { color: #b06000; } .PROBLEM { color: #c5221f; } .waiting { color: #5f6368; }
  .charts { display: grid; grid-template-columns: repeat(2, 540px); gap: 12px; }
  .chart { background: #fff; border: 1px solid #e3e6eb; padding: 8px; }
  .chart h3 { font-size: 13px; margin: 0 0 4px; font-weight: 600; }
  pre { background: #fff; border: 1px solid #e3e6eb; padding: 8px; margin: 0; }
  .recounted, .duplicate, .filtered { color: #b06000; } .superseded, .deleted, .quarantined { color: #5f6368; }
  #why-form input { width: 560px; padding: 4px; } #why-form { margin-bottom: 8px; }
  a.why { margin-left: 8px; color: #1a73e8; cursor: pointer; }
</style>
</head>
<body>
<h1>lakestream status</h1>
<table id="status"><tr><th>stream</th><th>health</th><th>last batch</th><th>rows in / out</th><th>late / dups dropped</th><th>lag</th><th>last error</th></tr></table>
<div id="streams"></div>
<h2>latest check</h2>
<pre id="check">check has not run yet</pre>
<h2>where did my record go</h2>
<form id="why-form">
  <select id="why-mode"><option value="record">record</option><option value="window">window</option></select>
  <input id="why-q" placeholder="3:1042 &middot; order_id=1006 &middot; 1006 &middot; {&quot;order_id&quot;: 1006} &middot; window: hourly_sales 2026-10-01 09:00">
  <button>why</button>
</form>
<pre id="why">a record's trail through every table, or the records of a window, as lakestream why shows them</pre>
<script>
"use strict";
const palette = ["#1a73e8", "#e8710a", "#188038", "#9334e6"];

// A line chart: series = [{label, values}], one value (or null) per x; x is the batch index.
function chart(parent, title, series, format) {
  const box = document.createElement("div");
  box.className = "chart";
  box.innerHTML = "<h3></h3>";
  box.querySelector("h3").textContent = title;
  const canvas = document.createElement("canvas");
  canvas.width = 520; canvas.height = 180;
  box.appendChild(canvas);
  parent.appendChild(box);
  const g = canvas.getContext("2d");
  const left = 70, right = 10, top = 22, bottom = 22;
  const all = series.flatMap(s => s.values).filter(v => v !== null && v !== undefined);
  let lo = Math.min(...all, 0), hi = Math.max(...all, 1);
  if (series.some(s => s.time)) { lo = Math.min(...all); hi = Math.max(...all); if (hi === lo) { hi += 60000; lo -= 60000; } }
  const n = Math.max(...series.map(s => s.values.length), 2);
  const x = i => left + (canvas.width - left - right) * i / (n - 1);
  const y = v => canvas.height - bottom - (canvas.height - top - bottom) * (v - lo) / (hi - lo);
  g.strokeStyle = "#e3e6eb"; g.fillStyle = "#5f6368"; g.font = "11px sans-serif";
  for (let k = 0; k <= 4; k++) {
    const v = lo + (hi - lo) * k / 4;
    g.beginPath(); g.moveTo(left, y(v)); g.lineTo(canvas.width - right, y(v)); g.stroke();
    g.fillText(format(v), 4, y(v) + 4);
  }
  g.fillText("batch", canvas.width - 40, canvas.height - 6);
  series.forEach((s, k) => {
    g.strokeStyle = palette[k]; g.fillStyle = palette[k]; g.lineWidth = 2;
    g.beginPath();
    let started = false;
    s.values.forEach((v, i) => {
      if (v === null || v === undefined) return;
      if (started) g.lineTo(x(i), y(v)); else { g.moveTo(x(i), y(v)); started = true; }
    });
    g.stroke();
    s.values.forEach((v, i) => { if (v !== null && v !== undefined) g.fillRect(x(i) - 2, y(v) - 2, 4, 4); });
    g.fillText(s.label, left + 8 + k * 150, 12);
  });
}

const number = v => v >= 1000 ? (v / 1000).toFixed(1) + "k" : v.toFixed(v < 10 ? 1 : 0);
const clock = ms => new Date(ms).toISOString().slice(5, 16).replace("T", " ");

function row(cells, health) {
  const tr = document.createElement("tr");
  cells.forEach((c, i) => {
    const td = document.createElement("td");
    td.textContent = c;
    if (i === 1) td.className = "health " + health;
    tr.appendChild(td);
  });
  return tr;
}

async function load() {
  const [status, progress, check] = await Promise.all(
    ["/api/status", "/api/progress", "/api/check"].map(p => fetch(p).then(r => r.json())));
  const table = document.getElementById("status");
  for (const s of status.streams) {
    const last = s.lastProgress;
    // With the brokers out of reach the lag is not known: say so, as status does, rather than 0.
    const counted = (n, one, many) => n + " " + (n === 1 ? one : many);
    const lag = s.kind !== "ingest" ? counted(s.versionsBehind, "version", "versions")
              : s.kafkaLagError ? "unknown: " + s.kafkaLagError
              : counted(s.kafkaLag.reduce((a, p) => a + p.lag, 0), "offset", "offsets");
    table.appendChild(row([s.name, s.health + (s.fallingBehind ? " (processing below input)" : ""),
      last ? "#" + last.batchId + " at " + last.timestamp : "none", s.numInputRows + " / " + s.numOutputRows,
      s.lateDropped + " / " + s.duplicatesDropped, lag, s.lastError || ""], s.health));
  }
  const streams = document.getElementById("streams");
  for (const s of progress.streams) {
    const h = document.createElement("h2");
    h.textContent = s.name + " \u2192 " + s.table + " (" + (s.points.length === 1 ? "1 batch)" : s.points.length + " batches)");
    streams.appendChild(h);
    const grid = document.createElement("div");
    grid.className = "charts";
    streams.appendChild(grid);
    const p = s.points;
    chart(grid, "rows per second", [
      { label: "input", values: p.map(q => q.inputRowsPerSecond) },
      { label: "processed", values: p.map(q => q.processedRowsPerSecond) }], number);
    chart(grid, "lag (offsets or versions behind)", [{ label: "lag", values: p.map(q => q.lag) }], number);
    if (p.some(q => q.watermarkMs !== undefined)) {
      chart(grid, "event time (UTC)", [
        { label: "watermark", values: p.map(q => q.watermarkMs ?? null), time: true },
        { label: "max event time", values: p.map(q => q.maxEventTimeMs ?? null), time: true }], clock);
      chart(grid, "late rows dropped per batch", [{ label: "late dropped", values: p.map(q => q.lateDropped) }], number);
    }
  }
  const pre = document.getElementById("check");
  if (check.lines) {
    pre.textContent = "";
    const head = document.createElement("div");
    head.textContent = "at " + check.at + (check.problem ? " \u2014 PROBLEM found" : " \u2014 no problem");
    pre.appendChild(head);
    for (const l of check.lines) {
      const line = document.createElement("div");
      line.className = l.verdict;
      line.textContent = l.verdict.padEnd(8) + l.text;
      // A late or PROBLEM window opens in the search box: its example records, and all of them.
      for (const e of l.examples || []) line.appendChild(whyLink("record " + e, "record", e));
      if (l.window) line.appendChild(whyLink("all records", "window", l.window));
      pre.appendChild(line);
    }
  }
  // A link to an answer: /#mode=window&q=hourly_sales%2009:00 opens with it asked.
  const asked = new URLSearchParams(location.hash.slice(1));
  if (asked.has("q")) {
    document.getElementById("why-mode").value = asked.get("mode") === "window" ? "window" : "record";
    document.getElementById("why-q").value = asked.get("q");
    await ask();
  }
  document.body.dataset.rendered = "yes";
}
load().catch(e => { document.body.dataset.rendered = "error: " + e; });

function whyLink(text, mode, q) {
  const a = document.createElement("a");
  a.className = "why";
  a.textContent = text;
  a.onclick = () => { document.getElementById("why-mode").value = mode; document.getElementById("why-q").value = q; ask(); };
  return a;
}

// Shows `lakestream why`'s answer: per record, its Kafka position, then one line per table.
async function ask() {
  const out = document.getElementById("why");
  const mode = document.getElementById("why-mode").value, q = document.getElementById("why-q").value;
  out.textContent = "tracing...";
  history.replaceState(null, "", "#" + new URLSearchParams({ mode, q }));
  const answer = await fetch("/api/why?mode=" + mode + "&q=" + encodeURIComponent(q)).then(r => r.json());
  out.textContent = "";
  const say = (text, cls) => { const d = document.createElement("div"); d.textContent = text; if (cls) d.className = cls; out.appendChild(d); return d; };
  if (answer.error) { say(answer.error, "PROBLEM"); out.dataset.answered = "error"; return; }
  if (answer.window) {
    const counts = Object.entries(answer.verdicts).map(([v, n]) => n + " " + v).join(", ");
    say(answer.window + (counts ? ": " + counts : ""));
  } else if (!answer.trails.length) {
    say("no record of bronze or its quarantine matches");
  }
  for (const t of answer.trails) {
    say(t.topic + " partition " + t.partition + " offset " + t.offset + (t.key === null ? ", no key" : ", key " + t.key) +
        (t.timestamp ? ", sent " + t.timestamp : ""));
    for (const s of t.steps) say("  " + s.verdict.padEnd(12) + s.table + ": " + s.why, s.verdict);
  }
  if (answer.more) say("... and " + answer.more + " more; name one by its position (PARTITION:OFFSET)");
  out.dataset.answered = "yes";
}
document.getElementById("why-form").onsubmit = e => { e.preventDefault(); ask().catch(err => { document.getElementById("why").textContent = "error: " + err; }); };
</script>
</body>
</html>
)html";
  return page;
}

}  // namespace lakestream
