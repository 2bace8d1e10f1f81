import { Client, type JSONRPCResponse } from "@modelcontextprotocol/client";

/**
 * The SDK's client, settling each answer in the order it arrived among the
 * notifications. The SDK hands a notification to its handler a microtask
 * after reading it but settles an answer at once, and settling forgets the
 * request's progress handler: a backend's last progress read in the same
 * chunk as its answer (as a loaded machine reads them) found no handler and
 * was dropped, so the caller never saw it. Settling the answer one microtask
 * later, in the same queue as the notifications before it, keeps the wire's
 * order. (The SDK's issue is modelcontextprotocol/typescript-sdk#2580: this
 * class can go once the SDK dispatches both in the order they arrive.)
 */
export class InOrderClient extends Client {
  protected override _onresponse(response: JSONRPCResponse): void {
    Promise.resolve()
      .then(() => super._onresponse(response))
      .catch((error: unknown) =>
        this.onerror?.(error instanceof Error ? error : new Error(String(error))),
      );
  }
}
