package io.coilgun.server.observe;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The status page at {@code /}: HTML rendered here from a {@link NodeStatusReport}, and a little JavaScript that
 * fetches {@code /status.json?html=1} every second to redraw the throughput and latency sparklines (the last two
 * minutes, kept in the page) and put in the tables rendered here again. No build toolchain, no external files.
 */
public final class StatusPage {
    private StatusPage() {
    }

    /** The whole page. */
    public static String render(Map<String, Object> report) {
        @SuppressWarnings("unchecked")
        Map<String, Object> node = (Map<String, Object>) report.get("node");
        return PAGE.replace("{{title}}", esc("Coilgun " + node.get("id")))
                .replace("{{tables}}", tables(report));
    }

    /** Everything below the sparklines: summary, nodes, streams, metrics, tasks, recent errors. */
    @SuppressWarnings("unchecked")
    public static String tables(Map<String, Object> report) {
        StringBuilder b = new StringBuilder();
        Map<String, Object> node = (Map<String, Object>) report.get("node");
        Map<String, Object> totals = (Map<String, Object>) report.get("totals");
        b.append("<p class=summary>node <b id=node-id>").append(esc(node.get("id"))).append("</b> · pgwire ")
                .append(esc(node.get("pgwire"))).append(" · version ").append(esc(node.get("version")))
                .append(" · up ").append(esc(node.get("uptime_s"))).append(" s · <span id=ready class=")
                .append(Boolean.TRUE.equals(node.get("ready")) ? "ok>ready" : "warn>catching up").append("</span>")
                .append(" · events answered ").append(esc(totals.get("events")))
                .append(" · latency p99 ").append(String.format(Locale.ROOT, "%.1f",
                        ((Number) totals.get("latency_p99_ms")).doubleValue())).append(" ms (last minute)</p>\n");
        table(b, "Nodes", "nodes", (List<Map<String, Object>>) report.get("nodes"),
                List.of("node_id", "pgwire", "processor_units", "version"));
        table(b, "Streams", "streams", (List<Map<String, Object>>) report.get("streams"),
                List.of("name", "partitions", "replicas", "partition_by", "metrics", "source"));
        table(b, "Metrics", "metrics", (List<Map<String, Object>>) report.get("metrics"),
                List.of("name", "stream", "window", "state", "backfilled_events", "backfill_events", "backfill_eta_s"));
        table(b, "Tasks", "tasks", (List<Map<String, Object>>) report.get("tasks"),
                List.of("task", "node", "processor_unit", "state", "replicas", "lag_events", "lag_ms", "next_offset",
                        "error"));
        table(b, "Recent warnings and errors (this node)", "errors",
                (List<Map<String, Object>>) report.get("errors"), List.of("at", "level", "logger", "message"));
        return b.toString();
    }

    private static void table(StringBuilder b, String title, String id, List<Map<String, Object>> rows,
            List<String> columns) {
        b.append("<h2>").append(esc(title)).append(" <small>").append(rows.size()).append("</small></h2>\n");
        b.append("<table id=").append(id).append("><tr>");
        for (String c : columns) {
            b.append("<th>").append(esc(c)).append("</th>");
        }
        b.append("</tr>\n");
        for (Map<String, Object> row : rows) {
            b.append("<tr>");
            for (String c : columns) {
                Object v = row.get(c);
                b.append("<td").append("state".equals(c) ? " class=\"st-" + esc(v) + "\"" : "").append('>')
                        .append(v == null ? "" : esc(v)).append("</td>");
            }
            b.append("</tr>\n");
        }
        if (rows.isEmpty()) {
            b.append("<tr><td colspan=").append(columns.size()).append(" class=none>none</td></tr>\n");
        }
        b.append("</table>\n");
    }

    static String esc(Object o) {
        String s = String.valueOf(o);
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    private static final String PAGE = """
            <!doctype html>
            <html lang=en><head><meta charset=utf-8><title>{{title}}</title>
            <meta name=viewport content="width=device-width, initial-scale=1">
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:1.2em 2em;color:#222}
            h1{font-size:20px;margin:0 0 .4em} h2{font-size:15px;margin:1.2em 0 .3em} h2 small{color:#888}
            table{border-collapse:collapse;font-size:13px} td,th{padding:2px 10px;border-bottom:1px solid #e4e4e4;
            text-align:left;white-space:nowrap} th{color:#555;font-weight:600}
            .ok{color:#0a7d2c;font-weight:600} .warn{color:#b35c00;font-weight:600} .none{color:#999}
            .st-failed,.st-ERROR{color:#c00;font-weight:600} .st-backfilling,.st-starting,.st-recovering{color:#b35c00}
            .sparks{display:flex;gap:2em;flex-wrap:wrap} .spark{border:1px solid #ddd;padding:6px 10px}
            .spark b{font-size:18px} svg{display:block}
            </style></head>
            <body>
            <h1>Coilgun</h1>
            <div class=sparks>
             <div class=spark>events/s <b id=rate>–</b><svg id=rate-line width=320 height=60></svg></div>
             <div class=spark>latency p99 ms (last minute) <b id=p99>–</b> · mean of the second <b id=mean>–</b>
              <svg id=p99-line width=320 height=60></svg></div>
            </div>
            <div id=tables>
            {{tables}}</div>
            <p id=updated class=none>rendered by the node; refreshed every second</p>
            <script>
            const keep = 120, rates = [], p99s = [];
            let last = null;
            function spark(id, values, color) {
              const svg = document.getElementById(id), w = 320, h = 60;
              const max = Math.max(1, ...values);
              const pts = values.map((v, i) => (w - (values.length - 1 - i) * (w / (keep - 1))).toFixed(1) + ','
                  + (h - 2 - (v / max) * (h - 6)).toFixed(1)).join(' ');
              svg.innerHTML = '<polyline fill=none stroke="' + color + '" stroke-width=1.5 points="' + pts
                  + '"/><text x=2 y=11 font-size=10 fill=#888>max ' + max.toFixed(1) + '</text>';
              svg.setAttribute('data-points', values.length);
            }
            async function refresh() {
              try {
                const r = await fetch('/status.json?html=1', {cache: 'no-store'});
                if (!r.ok) throw new Error('HTTP ' + r.status);
                const s = await r.json();
                const t = s.totals;
                if (last) {
                  const dt = (s.time_ms - last.time_ms) / 1000;
                  const n = t.latency_count - last.totals.latency_count;
                  const rate = dt > 0 ? Math.max(0, t.events - last.totals.events) / dt : 0;
                  rates.push(rate); p99s.push(t.latency_p99_ms);
                  if (rates.length > keep) { rates.shift(); p99s.shift(); }
                  document.getElementById('rate').textContent = rate.toFixed(0);
                  document.getElementById('mean').textContent = n > 0
                      ? ((t.latency_sum_ms - last.totals.latency_sum_ms) / n).toFixed(1) : '–';
                  spark('rate-line', rates, '#1f6fd1');
                  spark('p99-line', p99s, '#d1541f');
                }
                document.getElementById('p99').textContent = t.latency_p99_ms.toFixed(1);
                document.getElementById('tables').innerHTML = s.tables_html;
                document.getElementById('updated').textContent = 'updated ' + new Date(s.time_ms).toISOString();
                last = s;
              } catch (e) {
                document.getElementById('updated').textContent = 'cannot reach the node: ' + e.message;
              }
            }
            refresh();
            setInterval(refresh, 1000);
            </script>
            </body></html>
            """;
}
