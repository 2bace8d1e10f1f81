import { api } from "../api.js";
import { h, replace, tableHead } from "../dom.js";

const EVERY_MS = 2000;

/**
 * Every source's state: up or down for anyone; with an admin scope on
 * `/healthz`, the state as the supervisor has it (starting, up, restarting,
 * failed), restarts, the last error as the log has it, and the registered
 * services with their circuit breakers.
 */
export function renderHealth(main, { me }) {
  const body = h("div", { "aria-live": "polite" });
  const detailed = me.can.health_details;
  replace(
    main,
    h("h1", {}, "Health"),
    detailed
      ? null
      : h(
          "p",
          { class: "hint" },
          "Your token shows whether each source is up; the details (state, restarts, last error) need an admin scope on /healthz.",
        ),
    body,
  );
  const draw = async () => {
    try {
      const health = detailed
        ? await api.healthDetails().catch(() => api.health())
        : await api.health();
      replace(body, sourcesTable(health.sources ?? {}), registryTable(health.registry ?? {}));
    } catch (err) {
      replace(
        body,
        h("p", { class: "error", role: "alert" }, `The broker did not answer: ${err.message}`),
      );
    }
  };
  void draw();
  const timer = setInterval(() => void draw(), EVERY_MS);
  return () => clearInterval(timer);
}

function sourcesTable(sources) {
  const rows = Object.entries(sources);
  const detailed = rows.some(([, s]) => s.state !== undefined);
  return h(
    "section",
    { "aria-labelledby": "sources-heading" },
    h("h2", { id: "sources-heading" }, "Sources"),
    h(
      "table",
      {},
      tableHead("Source", "State", detailed && ["Restarts", "Last error"]),
      h(
        "tbody",
        {},
        rows.map(([id, s]) => {
          const state = s.state ?? (s.up ? "up" : "down");
          return h(
            "tr",
            { "data-source": id },
            h("th", { scope: "row" }, id),
            h("td", {}, h("span", { class: `health ${s.up ? "up" : "down"}` }, state)),
            detailed
              ? [
                  h("td", {}, String(s.restarts ?? 0)),
                  h("td", { class: "last-error" }, s.last_error ?? "—"),
                ]
              : null,
          );
        }),
      ),
    ),
  );
}

function registryTable(registry) {
  const rows = Object.entries(registry);
  if (rows.length === 0) return null;
  return h(
    "section",
    { "aria-labelledby": "registry-heading" },
    h("h2", { id: "registry-heading" }, "Registered services"),
    h(
      "table",
      {},
      tableHead("Tool", "Status", "Breaker", "Last error"),
      h(
        "tbody",
        {},
        rows.map(([tool, r]) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, tool),
            h("td", {}, r.status),
            h("td", {}, r.breaker),
            h("td", {}, r.last_error ?? "—"),
          ),
        ),
      ),
    ),
  );
}
