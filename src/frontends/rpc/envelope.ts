import { z } from "zod";

export type RpcId = string | number | null;

/** A JSON-RPC 2.0 request object; `id` absent makes it a notification. */
export const RpcRequestSchema = z.strictObject({
  jsonrpc: z.literal("2.0", { error: 'expected "jsonrpc": "2.0"' }),
  method: z.string({ error: "expected a string method" }).min(1),
  params: z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown())], {
      error: "expected params to be an object (or an array)",
    })
    .optional(),
  id: z
    .union([z.string(), z.number(), z.null()], { error: "expected a string, number or null id" })
    .optional(),
});

export type RpcRequest = z.infer<typeof RpcRequestSchema>;

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type RpcResponse =
  | { readonly jsonrpc: "2.0"; readonly result: unknown; readonly id: RpcId }
  | { readonly jsonrpc: "2.0"; readonly error: RpcError; readonly id: RpcId };

export function success(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: "2.0", result, id };
}

export function failure(id: RpcId, error: RpcError): RpcResponse {
  return { jsonrpc: "2.0", error, id };
}

/** The id of a request that failed validation, when it has a usable one (else null, per JSON-RPC). */
export function salvageId(member: unknown): RpcId {
  if (member === null || typeof member !== "object" || Array.isArray(member)) return null;
  const id = (member as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}
