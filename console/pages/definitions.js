import { api } from "../api.js";
import { announce, h } from "../dom.js";

/**
 * Tool definitions that are not the ones pinned (changed, new on a pinned
 * source, or holding suspicious text), for an admin of their path: what
 * differs, as a diff, the findings, and Approve, which pins what is offered.
 */
export async function definitionsSection(redraw) {
  const { changes } = await api.pins();
  if (changes.length === 0) return null;
  return h(
    "section",
    { "aria-labelledby": "definitions-heading" },
    h("h2", { id: "definitions-heading" }, "Tool definitions"),
    h(
      "p",
      { class: "hint" },
      "These tools offer a definition other than the one pinned. Held ones are out of the tree until approved; approving pins what is offered now.",
    ),
    changes.map((change) =>
      h(
        "article",
        { class: "definition", "data-path": change.path },
        h(
          "h3",
          {},
          change.path,
          " ",
          h("span", { class: `badge ${change.held ? "error" : ""}` }, change.kind),
          change.held ? h("span", { class: "badge error" }, "held") : null,
        ),
        change.fields.length > 0 ? h("p", {}, `Changed: ${change.fields.join(", ")}`) : null,
        change.findings.length > 0
          ? h(
              "ul",
              { class: "findings" },
              change.findings.map((f) => h("li", {}, `${f.rule} in ${f.field}: ${f.excerpt}`)),
            )
          : null,
        change.diff ? h("pre", { class: "output diff" }, change.diff) : null,
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "aria-label": `Approve the definition of ${change.path}`,
            onClick: async (event) => {
              event.target.disabled = true;
              try {
                await api.approvePin(change.path);
                announce(`Approved the definition of ${change.path}`);
              } catch (err) {
                announce(`Could not approve ${change.path}: ${err.message}`);
              }
              redraw();
            },
          },
          "Approve",
        ),
      ),
    ),
  );
}
