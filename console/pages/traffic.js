import { createParser } from "/console/vendor/eventsource-parser.js";
import { api, headers } from "../api.js";
import { lineChart } from "../chart.js";
import { h, refusePage, replace, tableHead } from "../dom.js";

const EVERY_MS = 2000;
/** Audit records kept in the page; the oldest go first. */
const KEPT = 300;

/**
 * Live traffic, for tokens with an admin scope on `/console` (it shows
 * tokens): calls per second and p50/p99 latency per source over the last
 * five minutes, the open sessions, and the audit stream as it is written,
 * filtered by path, token and outcome.
 */
export function renderTraffic(main, { me }) {
  if (!me.can.traffic) {
    return refusePage(
      main,
      "Traffic",
      `Token "${me.token}" may not see the live traffic: it needs an admin scope on /console (admin:/console or admin:/**).`,
    );
  }
  const controller = new AbortController();
  const sessions = h("p", { class: "sessions" });
  const charts = h("div", { class: "charts" });
  const records = [];
  const filters = { path: "", token: "", outcome: "" };
  const rows = h("tbody", {});
  const streamState = h("p", { class: "hint" }, "Connecting…");
  const filter = (name, label) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: `filter-${name}` }, label),
      h("input", {
        id: `filter-${name}`,
        type: "search",
        onInput: (event) => {
          filters[name] = event.target.value.trim();
          drawRows();
        },
      }),
    );
  const drawRows = () => {
    const shown = records.filter(
      (r) =>
        (!filters.path || r.path.includes(filters.path)) &&
        (!filters.token || r.token === filters.token) &&
        (!filters.outcome || r.outcome === filters.outcome),
    );
    replace(
      rows,
      shown.map((r) =>
        h(
          "tr",
          { class: r.outcome === "ok" ? "" : "failed" },
          h("td", {}, r.time.slice(11, 23)),
          h("td", {}, r.method),
          h("td", {}, r.path),
          h("td", {}, r.token),
          h("td", {}, r.outcome),
          h("td", { class: "number" }, r.duration_ms.toFixed(1)),
        ),
      ),
    );
  };
  replace(
    main,
    h("h1", {}, "Traffic"),
    sessions,
    h(
      "section",
      { "aria-labelledby": "charts-heading" },
      h("h2", { id: "charts-heading" }, "Calls over the last five minutes"),
      charts,
    ),
    h(
      "section",
      { "aria-labelledby": "stream-heading" },
      h("h2", { id: "stream-heading" }, "Live requests"),
      h(
        "div",
        { class: "filters" },
        filter("path", "Path contains"),
        filter("token", "Token"),
        filter("outcome", "Outcome"),
      ),
      streamState,
      h(
        "table",
        { class: "stream" },
        tableHead("Time", "Method", "Path", "Token", "Outcome", "ms"),
        rows,
      ),
    ),
  );
  const drawCharts = async () => {
    try {
      const traffic = await api.traffic();
      const open = Object.entries(traffic.sessions)
        .map(([kind, n]) => `${n} ${kind}`)
        .join(", ");
      sessions.textContent = `Open sessions: ${open || "none"}`;
      const sources = Object.entries(traffic.sources);
      replace(
        charts,
        sources.length === 0
          ? h("p", {}, "No calls in the last five minutes.")
          : sources.map(([source, points]) =>
              h(
                "div",
                { class: "chart-group" },
                h("h3", {}, source),
                lineChart(
                  `${source} calls per second`,
                  [{ name: "calls/s", class: "calls", values: points.map((p) => p.calls_per_s) }],
                  "/s",
                ),
                lineChart(
                  `${source} latency`,
                  [
                    { name: "p50", class: "p50", values: points.map((p) => p.p50_ms) },
                    { name: "p99", class: "p99", values: points.map((p) => p.p99_ms) },
                  ],
                  "ms",
                ),
              ),
            ),
      );
    } catch (err) {
      replace(charts, h("p", { class: "error", role: "alert" }, err.message));
    }
  };
  void drawCharts();
  const timer = setInterval(() => void drawCharts(), EVERY_MS);
  void follow(controller.signal, streamState, (record) => {
    records.unshift(record);
    records.length = Math.min(records.length, KEPT);
    drawRows();
  });
  return () => {
    clearInterval(timer);
    controller.abort();
  };
}

/** Reads the audit stream (Server-Sent Events, with the token as a bearer), reconnecting when it breaks. */
async function follow(signal, state, onRecord) {
  while (!signal.aborted) {
    try {
      const response = await fetch("/console/api/audit", {
        headers: headers({ accept: "text/event-stream" }),
        signal,
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      state.textContent = "Live: new requests appear at the top.";
      const parser = createParser({
        onEvent: (event) => {
          if (event.event === "audit") onRecord(JSON.parse(event.data));
          if (event.event === "dropped")
            state.textContent = `Live; ${JSON.parse(event.data).count} requests were too many to show.`;
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (err) {
      if (signal.aborted) return;
      state.textContent = `The stream broke (${err.message}); reconnecting…`;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
