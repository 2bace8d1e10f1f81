import { BrokerError } from "../contract/errors.js";
import type { DefinitionChange } from "../pinning/pin-book.js";

/** What `meta_desc` says of a tool whose definition is not the one pinned (under `warn`). */
export function pinningNote(change: DefinitionChange): Record<string, unknown> {
  return {
    status: change.kind,
    ...(change.fields.length > 0 && { changed_fields: change.fields }),
    ...(change.pinned && { pinned_at: change.pinned.pinned_at }),
    ...(change.findings.length > 0 && {
      findings: change.findings.map((f) => ({ rule: f.rule, field: f.field })),
    }),
    note: `${heldWhy(change)}; an admin has not approved it yet`,
  };
}

function heldWhy(change: DefinitionChange): string {
  switch (change.kind) {
    case "changed":
      return `its definition changed since it was pinned (${change.fields.join(", ") || "its text"})`;
    case "new":
      return "it is new on a source whose tools were pinned before";
    case "suspicious":
      return `its definition holds text a tool has no business holding (${[...new Set(change.findings.map((f) => f.rule))].join(", ")})`;
  }
}

/** The refusal of a call of a tool that pinning holds back, saying why and who may let it through. */
export function heldBack(change: DefinitionChange): BrokerError {
  return new BrokerError(
    "forbidden",
    `${change.path} is held back: ${heldWhy(change)}; an admin reviews the difference and approves it (GET /pins, POST /pins/approve, the console, or mcp-broker pins)`,
    { path: change.path, pinning: change.kind },
  );
}
