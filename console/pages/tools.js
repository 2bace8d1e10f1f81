import { api, ApiError } from "../api.js";
import { announce, h, replace } from "../dom.js";
import { argumentsForm } from "../form.js";
import { renderOutput } from "../output.js";

const HEALTH_EVERY_MS = 5000;

/**
 * The tree and its search beside the page of one node or tool; a tool's page
 * is also its playground: its arguments as a form (or JSON), called through
 * the broker's policy with the user's token.
 */
export function renderTools(main, context, path) {
  const controller = new AbortController();
  const health = new SourceHealth();
  const tree = h("ul", { class: "tree" });
  const results = h("div", { class: "results" });
  const detail = h("section", { class: "detail", "aria-labelledby": "detail-heading" });
  const query = h("input", { id: "search", type: "search", name: "q", autocomplete: "off" });
  const search = h(
    "form",
    {
      role: "search",
      onSubmit: (event) => {
        event.preventDefault();
        void showSearch(query.value.trim(), results, tree, health);
      },
    },
    h("label", { for: "search" }, "Search tools"),
    h("div", { class: "row" }, query, h("button", { type: "submit" }, "Search")),
  );
  replace(
    main,
    h("h1", {}, "Tools"),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { class: "sidebar", "aria-labelledby": "tree-heading" },
        h("h2", { id: "tree-heading" }, "Tree"),
        search,
        results,
        tree,
      ),
      detail,
    ),
  );
  const refresh = async () => {
    await health.load().catch(() => undefined);
    health.paint(main);
  };
  void (async () => {
    await refresh();
    await fillTree(tree, "/", health, path).catch((err) => showError(tree, err));
    await showNode(detail, path, health, controller.signal);
  })();
  const timer = setInterval(() => void refresh(), HEALTH_EVERY_MS);
  return () => {
    clearInterval(timer);
    controller.abort();
  };
}

/** Each source's up or down, from the public `/healthz`, and which node belongs to which source. */
class SourceHealth {
  sources = {};

  async load() {
    this.sources = (await api.health()).sources ?? {};
  }

  /** `up`, `down`, `partly down` (a node above several sources), or undefined (no source). */
  of(path) {
    const under = Object.entries(this.sources).filter(
      ([id]) =>
        path === id || path.startsWith(`${id}/`) || id.startsWith(path === "/" ? "/" : `${path}/`),
    );
    if (under.length === 0) return undefined;
    const up = under.filter(([, s]) => s.up).length;
    return up === under.length ? "up" : up === 0 ? "down" : "partly down";
  }

  badge(path) {
    const state = this.of(path);
    return state === undefined
      ? null
      : h("span", { class: `health ${state.replace(" ", "-")}`, "data-health-of": path }, state);
  }

  /** Updates every badge on the page to the latest state. */
  paint(root) {
    for (const badge of root.querySelectorAll("[data-health-of]")) {
      const state = this.of(badge.dataset.healthOf);
      if (state === undefined || badge.textContent === state) continue;
      badge.textContent = state;
      badge.className = `health ${state.replace(" ", "-")}`;
    }
  }
}

const hrefOf = (path) =>
  `#/tools${path === "/" ? "" : path.split("/").map(encodeURIComponent).join("/")}`;

async function fillTree(list, path, health, open) {
  const { children } = await api.tree(path);
  replace(
    list,
    children.map((child) => {
      const link = h(
        "a",
        {
          href: hrefOf(child.path),
          title: child.summary ?? "",
          "aria-current": child.path === open ? "page" : undefined,
        },
        child.name,
      );
      if (child.type === "tool") return h("li", { class: "tool" }, link);
      const sub = h("ul", { hidden: true });
      const toggle = h("button", {
        type: "button",
        class: "toggle",
        "aria-expanded": "false",
        "aria-label": `Expand ${child.path}`,
        onClick: async () => {
          const expand = toggle.getAttribute("aria-expanded") !== "true";
          toggle.setAttribute("aria-expanded", String(expand));
          toggle.setAttribute("aria-label", `${expand ? "Collapse" : "Expand"} ${child.path}`);
          sub.hidden = !expand;
          if (expand && !sub.hasChildNodes())
            await fillTree(sub, child.path, health, open).catch((err) => showError(sub, err));
        },
      });
      const item = h("li", { class: "node" }, toggle, link, " ", health.badge(child.path), sub);
      if (open.startsWith(`${child.path}/`) || open === child.path)
        queueMicrotask(() => toggle.click());
      return item;
    }),
  );
}

async function showSearch(query, results, tree, health) {
  if (query === "") {
    replace(results);
    tree.hidden = false;
    return;
  }
  replace(results, h("p", {}, "Searching…"));
  try {
    const { results: found, notice } = await api.search(query);
    tree.hidden = true;
    replace(
      results,
      h("h3", {}, `Results for “${query}”`),
      // The broker's own words: what was not searched, or where to look when nothing was found.
      notice && h("p", { class: "hint" }, notice),
      found.length === 0
        ? notice
          ? null
          : h("p", {}, "No tool matches. Try other words, or browse the tree.")
        : h(
            "ol",
            { class: "found" },
            found.map((r) =>
              h(
                "li",
                {},
                h("a", { href: hrefOf(r.path) }, r.path),
                " ",
                health.badge(r.path),
                h("p", { class: "hint" }, r.summary ?? ""),
              ),
            ),
          ),
      h(
        "button",
        {
          type: "button",
          onClick: () => {
            replace(results);
            tree.hidden = false;
          },
        },
        "Back to the tree",
      ),
    );
    announce(`${found.length} tools found`);
  } catch (err) {
    showError(results, err);
  }
}

async function showNode(detail, path, health, signal) {
  replace(detail, h("p", {}, "Loading…"));
  let node;
  let children;
  try {
    node = await api.desc(path);
    // meta_desc gives the first children of a large node; meta_tree gives them all.
    children =
      node.children_total === undefined ? (node.children ?? []) : (await api.tree(path)).children;
  } catch (err) {
    replace(detail, h("h2", { id: "detail-heading" }, path));
    showError(detail, err, true);
    return;
  }
  if (node.type !== "tool") {
    replace(
      detail,
      h("h2", { id: "detail-heading" }, node.path, " ", health.badge(node.path)),
      node.summary ? h("p", {}, node.summary) : null,
      sourceFacts(node.source),
      h(
        "ul",
        { class: "children" },
        children.map((child) =>
          h(
            "li",
            {},
            h("a", { href: hrefOf(child.path) }, child.name),
            child.type === "tool" ? " (tool)" : "",
            child.summary ? h("span", { class: "hint" }, ` — ${child.summary}`) : null,
          ),
        ),
      ),
    );
    return;
  }
  showTool(detail, node, health, signal);
}

/** What a node's source says of itself: when it last went down, and its sandbox. */
function sourceFacts(source) {
  if (!source || (!source.sandbox && !source.last_down)) return null;
  const box = source.sandbox;
  const list = (paths) => (paths.length === 0 ? "nothing" : paths.join(", "));
  return h(
    "dl",
    { class: "source-facts" },
    box
      ? [
          h("dt", {}, "Sandbox"),
          h(
            "dd",
            {},
            `reads ${list(box.read)}; writes ${list(box.write)}; network ${box.network}; ` +
              `${box.memory_mb} MB, ${box.pids} processes, ${box.open_files} open files` +
              (box.cpu_s ? `, ${box.cpu_s} CPU s` : ""),
          ),
        ]
      : null,
    source.last_down ? [h("dt", {}, "Last down"), h("dd", {}, source.last_down)] : null,
  );
}

function showTool(detail, tool, health, signal) {
  const form = argumentsForm(tool.args_schema, tool.example_args ?? {});
  const json = h("textarea", {
    id: "args-json",
    class: "json",
    rows: 8,
    spellcheck: "false",
    value: JSON.stringify(tool.example_args ?? {}, null, 2),
  });
  const jsonField = h(
    "div",
    { class: "field", hidden: true },
    h("label", { for: "args-json" }, "Arguments (JSON)"),
    json,
  );
  const asJson = h("input", {
    id: "as-json",
    type: "checkbox",
    onChange: () => {
      try {
        if (asJson.checked) json.value = JSON.stringify(form.read(), null, 2);
      } catch {
        // The form holds something that is not JSON: the JSON box keeps what it had.
      }
      form.element.hidden = asJson.checked;
      jsonField.hidden = !asJson.checked;
    },
  });
  const result = h("div", { class: "result", "aria-live": "polite" });
  const call = h("button", { type: "submit", class: "primary" }, "Call");
  const playground = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "playground-heading",
      // The broker checks the arguments against the schema and says what is wrong; the browser's
      // own checks would also stop on the fields hidden while editing as JSON.
      novalidate: true,
      onSubmit: async (event) => {
        event.preventDefault();
        let args;
        try {
          args = asJson.checked ? JSON.parse(json.value || "{}") : form.read();
        } catch (err) {
          replace(
            result,
            h("p", { class: "error", role: "alert" }, `The arguments are not JSON: ${err.message}`),
          );
          return;
        }
        call.disabled = true;
        replace(result, h("p", {}, "Calling…"));
        const started = performance.now();
        try {
          const { json: answer, response } = await api.call(tool.path, args, signal);
          showResult(result, answer, serverTime(response) ?? performance.now() - started);
        } catch (err) {
          if (err.name === "AbortError") return;
          replace(
            result,
            h("h3", {}, "Result"),
            h(
              "p",
              { class: "status error", role: "alert" },
              `${err.kind ?? "error"}: ${err.message}`,
            ),
            h("p", { class: "hint" }, `after ${(performance.now() - started).toFixed(1)} ms`),
          );
        } finally {
          call.disabled = false;
        }
      },
    },
    h("h3", { id: "playground-heading" }, "Playground"),
    h(
      "p",
      { class: "hint" },
      "Calls the tool through the broker's policy (scopes, limits, redaction, audit) with your token.",
    ),
    form.element,
    jsonField,
    h("div", { class: "row" }, h("label", { class: "inline" }, asJson, " Edit as JSON"), call),
  );
  const annotations = Object.entries(tool.annotations ?? {});
  replace(
    detail,
    h("h2", { id: "detail-heading" }, tool.path, " ", health.badge(tool.path)),
    // The summary is often the description's start, cut: the whole description then says it.
    tool.summary && !tool.description?.startsWith(tool.summary.replace(/…$/, "").trimEnd())
      ? h("p", { class: "summary" }, tool.summary)
      : null,
    tool.description ? h("p", { class: "description" }, tool.description) : null,
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Flat name"),
      h("dd", {}, h("code", {}, tool.flat_name ?? "—")),
      h("dt", {}, "Output"),
      h("dd", {}, tool.render_mode ?? "mcp"),
      tool.timeout_s ? [h("dt", {}, "Timeout"), h("dd", {}, `${tool.timeout_s} s`)] : null,
      annotations.length
        ? [h("dt", {}, "Hints"), h("dd", {}, annotations.map(([k, v]) => `${k}: ${v}`).join(", "))]
        : null,
    ),
    h(
      "details",
      {},
      h("summary", {}, "Argument schema"),
      h("pre", { class: "code" }, JSON.stringify(tool.args_schema ?? {}, null, 2)),
    ),
    tool.example_args
      ? h(
          "details",
          {},
          h("summary", {}, "Example arguments"),
          h("pre", { class: "code" }, JSON.stringify(tool.example_args, null, 2)),
        )
      : null,
    playground,
    result,
  );
}

function serverTime(response) {
  const match = /call;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "");
  return match ? Number(match[1]) : undefined;
}

function showResult(result, answer, ms) {
  const badges = [
    answer.is_error
      ? h("span", { class: "badge error" }, "tool error")
      : h("span", { class: "badge ok" }, "ok"),
    answer.truncated ? h("span", { class: "badge warn" }, "truncated") : null,
    answer.redacted ? h("span", { class: "badge warn" }, "redacted") : null,
  ];
  replace(
    result,
    h("h3", {}, "Result"),
    h(
      "p",
      { class: "status" },
      badges,
      " ",
      h("span", { class: "took" }, `took ${ms.toFixed(1)} ms`),
    ),
    answer.truncated
      ? h(
          "p",
          { class: "hint" },
          answer.output?.note ?? "The output was shortened to fit max_output_chars.",
        )
      : null,
    answer.redacted
      ? h("p", { class: "hint" }, "Sensitive keys were removed from the answer.")
      : null,
    renderOutput(answer.truncated ? answer.output.value : answer.output),
  );
  announce(
    answer.is_error
      ? "The tool answered with an error"
      : `The call took ${ms.toFixed(0)} milliseconds`,
  );
}

function showError(where, err, keep = false) {
  const message =
    err instanceof ApiError && err.status === 401
      ? "Your token was not accepted: sign in again."
      : (err.message ?? String(err));
  const alert = h("p", { class: "error", role: "alert" }, message);
  if (keep) where.append(alert);
  else replace(where, alert);
}
