import type { ElicitResult } from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { ApprovalRule } from "../../tasks/approval-rules.js";
import type { ToolCall } from "../link.js";

/** How much of the arguments the question shows, at most. */
const SHOWN_ARGS_CHARS = 2000;

/**
 * Asks the person at the calling client whether the call may run, through
 * MCP elicitation (in revision 2026-07-28, an input-required round of the
 * call); resolves when they accept with `approve: true`, else refuses the
 * call, saying what they answered. A client that cannot be asked is refused
 * too: the rule wants its person, and nobody else may stand in.
 */
export async function askCaller(call: ToolCall, rule: ApprovalRule): Promise<void> {
  const { ctx } = call;
  if (ctx.request === undefined || ctx.clientCapabilities?.elicitation === undefined) {
    throw new BrokerError(
      "forbidden",
      `${call.path} runs only once the person at the calling client approves it (approvals rule ${rule.rule}), and this client cannot be asked: use an MCP client that offers elicitation`,
      { path: call.path, approval: "caller" },
    );
  }
  const args = JSON.stringify(call.args);
  const answer = (await ctx.request(
    {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `Allow ${call.path} to run with these arguments?\n${args.length > SHOWN_ARGS_CHARS ? `${args.slice(0, SHOWN_ARGS_CHARS)}…` : args}`,
        requestedSchema: {
          type: "object",
          properties: {
            approve: { type: "boolean", title: "Approve", description: "Run this call once" },
          },
          required: ["approve"],
        },
      },
    },
    ctx.signal,
  )) as ElicitResult;
  if (answer.action === "accept" && answer.content?.approve === true) return;
  throw new BrokerError(
    "forbidden",
    `the person at the client did not approve ${call.path} (${answer.action === "accept" ? "answered no" : answer.action})`,
    { path: call.path, approval: "caller", action: answer.action },
  );
}
