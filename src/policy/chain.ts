/**
 * The policy chain: every tool call passes these links, in this order, on its
 * way to the source. Each link is `(call, next) => result`; it may refuse the
 * call, change its context, or look at the result on the way back.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "../core/router.js";
import type { ToolEntry } from "../tree/tree.js";
import { timeout } from "./timeout/index.js";
import { validateArguments } from "./validate-arguments/index.js";

export interface Call {
  readonly path: string;
  readonly leaf: ToolEntry;
  readonly args: Record<string, unknown>;
  readonly ctx: CallContext;
}

export type Next = (call: Call) => Promise<CallToolResult>;
export type Link = (call: Call, next: Next) => Promise<CallToolResult>;

/** The links, outermost first. */
export function defaultLinks(): Link[] {
  return [validateArguments(), timeout()];
}

/** Wraps `last` (the call to the source) in the links, the first link outermost. */
export function compose(links: readonly Link[], last: Next): Next {
  return links.reduceRight<Next>((next, link) => (call) => link(call, next), last);
}
