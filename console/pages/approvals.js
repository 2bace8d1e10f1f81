import { api } from "../api.js";
import { announce, h, replace, tableHead } from "../dom.js";
import { definitionsSection } from "./definitions.js";

const EVERY_MS = 2000;

/**
 * Calls waiting for a person's approval that this token may decide (an
 * `approve` scope on their path): who asked, for which tool, with which
 * arguments, until when; each approved or denied here, with a reason. And,
 * for an admin, the tool definitions that are not the ones pinned.
 */
export function renderApprovals(main, { me }) {
  const body = h("div", { "aria-live": "polite" });
  replace(
    main,
    h("h1", {}, "Approvals"),
    h(
      "p",
      { class: "hint" },
      "Calls the config holds for a person's approval appear here when your token may approve them (an approve scope on their path). Approving runs the call once, as its caller.",
    ),
    body,
  );
  let drawing = false;
  const draw = async () => {
    if (drawing) return;
    drawing = true;
    try {
      const redraw = () => void draw();
      const [{ tasks }, definitions] = await Promise.all([
        api.tasks("awaiting_approval"),
        me.can.pins ? definitionsSection(redraw) : null,
      ]);
      replace(
        body,
        h(
          "section",
          { "aria-labelledby": "calls-heading" },
          h("h2", { id: "calls-heading" }, "Calls"),
          callsTable(tasks, redraw),
        ),
        definitions,
      );
    } catch (err) {
      replace(
        body,
        h("p", { class: "error", role: "alert" }, `The broker did not answer: ${err.message}`),
      );
    } finally {
      drawing = false;
    }
  };
  void draw();
  const timer = setInterval(() => void draw(), EVERY_MS);
  return () => clearInterval(timer);
}

function callsTable(tasks, redraw) {
  if (tasks.length === 0) return h("p", {}, "No call is waiting for your approval.");
  return h(
    "table",
    { class: "approvals" },
    tableHead("Tool", "Caller", "Arguments", "Asked", "Until", "Decision"),
    h(
      "tbody",
      {},
      tasks.map((task) => {
        const reason = h("input", {
          id: `reason-${task.id}`,
          type: "text",
          "aria-label": `Reason for ${task.path} of ${task.caller}`,
          placeholder: "Reason (optional)",
        });
        const decide = (action) => async (event) => {
          event.target.disabled = true;
          try {
            await api.decide(task.id, action, reason.value.trim() || undefined);
            announce(`${action === "approve" ? "Approved" : "Denied"} ${task.path}`);
          } catch (err) {
            announce(`Could not ${action} ${task.path}: ${err.message}`);
          }
          redraw();
        };
        return h(
          "tr",
          { "data-task": task.id },
          h("th", { scope: "row" }, task.path),
          h("td", {}, task.caller),
          h("td", {}, h("pre", { class: "output" }, JSON.stringify(task.args, null, 2))),
          h("td", {}, h("time", { datetime: task.created_at }, localTime(task.created_at))),
          h(
            "td",
            {},
            h("time", { datetime: task.approval.expires_at }, localTime(task.approval.expires_at)),
          ),
          h(
            "td",
            { class: "decision" },
            reason,
            h(
              "button",
              { type: "button", class: "primary", onClick: decide("approve") },
              "Approve",
            ),
            h("button", { type: "button", onClick: decide("deny") }, "Deny"),
          ),
        );
      }),
    ),
  );
}

function localTime(iso) {
  return new Date(iso).toLocaleString();
}
