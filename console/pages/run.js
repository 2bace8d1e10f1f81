import { api } from "../api.js";
import { announce, h, refusePage, replace, tableHead } from "../dom.js";
import { renderOutput } from "../output.js";

const EXAMPLE = `// The body of an async function: call tools, keep what you need, return it.
const found = await search("add two numbers", { limit: 1 });
console.log("using", found.results[0]?.path);
return found.results.map((r) => r.path);`;

/**
 * A script run with `meta_run` as the signed-in token: its code, then what
 * it returned (or why it failed, at which line), what it logged, and each
 * call it made with its outcome and time, as the broker's policy answered it.
 */
export function renderRun(main, { me }) {
  if (!me.can.run) {
    return refusePage(
      main,
      "Run",
      `Token "${me.token}" may not run scripts: it needs the run scope (run:/ or *:/**).`,
    );
  }
  const controller = new AbortController();
  const code = h("textarea", {
    id: "code",
    class: "json code-input",
    rows: 12,
    spellcheck: "false",
  });
  code.value = EXAMPLE;
  const timeout = h("input", { id: "timeout", type: "number", min: 1, max: 300, value: 30 });
  const result = h("div", { class: "result", "aria-live": "polite" });
  const run = h("button", { type: "submit", class: "primary" }, "Run");
  replace(
    main,
    h("h1", {}, "Run"),
    h(
      "p",
      { class: "hint" },
      "A script that calls many tools in one step (meta_run), in a sandbox; each call goes through the broker's policy with your token. In scope: call(path, args), search(query, {limit}), describe(path), tree(path), tools.<node>.<tool>(args), console.log.",
    ),
    h(
      "form",
      {
        class: "card",
        novalidate: true,
        onSubmit: async (event) => {
          event.preventDefault();
          run.disabled = true;
          replace(result, h("p", {}, "Running…"));
          try {
            const answer = await api.run(
              code.value,
              Number(timeout.value) || 30,
              controller.signal,
            );
            showAnswer(result, answer);
            announce(answer.error ? `The script failed: ${answer.error.kind}` : "The script ran");
          } catch (err) {
            if (err.name === "AbortError") return;
            replace(
              result,
              h(
                "p",
                { class: "status error", role: "alert" },
                `${err.kind ?? "error"}: ${err.message}`,
              ),
            );
          } finally {
            run.disabled = false;
          }
        },
      },
      h("div", { class: "field" }, h("label", { for: "code" }, "Script"), code),
      h(
        "div",
        { class: "row" },
        h("label", { for: "timeout", class: "inline" }, "Timeout (s)", timeout),
        run,
      ),
    ),
    result,
  );
  return () => controller.abort();
}

function showAnswer(result, answer) {
  const failed = answer.error !== undefined;
  replace(
    result,
    h("h2", {}, "Result"),
    h(
      "p",
      {},
      failed
        ? h("span", { class: "badge error" }, answer.error.kind)
        : h("span", { class: "badge ok" }, "ok"),
      h(
        "span",
        { class: "took" },
        `${answer.calls} call${answer.calls === 1 ? "" : "s"}, took ${answer.duration_ms} ms`,
      ),
    ),
    failed
      ? h(
          "p",
          { class: "status error", role: "alert" },
          answer.error.message,
          answer.error.line === undefined ? "" : ` (line ${answer.error.line})`,
        )
      : renderOutput(answer.result),
    h("h2", {}, "Logs"),
    answer.logs.length === 0
      ? h("p", { class: "hint" }, "Nothing was logged.")
      : h(
          "pre",
          { class: "output logs" },
          answer.logs.map((l) => `${l.level}: ${l.message}`).join("\n"),
        ),
    h("h2", {}, "Calls"),
    (answer.call_log ?? []).length === 0
      ? h("p", { class: "hint" }, "The script made no calls.")
      : h(
          "table",
          { class: "calls" },
          tableHead("Call", "Target", "Outcome", "ms"),
          h(
            "tbody",
            {},
            answer.call_log.map((c) =>
              h(
                "tr",
                {},
                h("td", {}, c.op),
                h("td", {}, c.target),
                h("td", {}, c.outcome),
                h("td", {}, String(c.duration_ms)),
              ),
            ),
          ),
        ),
  );
}
