/**
 * The worker thread that holds one component instance. Loaded as a file of its
 * own, so it imports nothing of the broker but types.
 */
import { parentPort, workerData } from "node:worker_threads";
import { WASIShim } from "@bytecodealliance/preview2-shim/instantiation";
import type { RouterExports } from "./wit/router-types.js";
import type { WorkerReply, WorkerRequest, WorkerSetup } from "./worker-protocol.js";

const ROUTER_EXPORT = "wasix:mcp/router@25.3.26";

type Instantiate = (
  getCoreModule: (name: string) => WebAssembly.Module,
  imports: object,
  instantiateCore: (module: WebAssembly.Module, imports: object) => Promise<WebAssembly.Instance>,
) => Promise<Record<string, RouterExports>>;

const setup = workerData as WorkerSetup;
const port = parentPort!;
const { instantiate } = (await import(setup.moduleUrl)) as { instantiate: Instantiate };
const shim = new WASIShim({
  sandbox: {
    preopens: { ...setup.sandbox.preopens },
    env: { ...setup.sandbox.env },
    args: ["component"],
    enableNetwork: setup.sandbox.enableNetwork,
  },
});
/** The linear memories of the core instances, to report how much the guest holds. */
const memories: WebAssembly.Memory[] = [];
const instance = await instantiate(
  (name) => {
    const compiled = setup.coreModules[name];
    if (!compiled) throw new Error(`the component asks for a core module ${name} it does not hold`);
    return compiled;
  },
  shim.getImportObject(),
  async (module, imports) => {
    const core = await WebAssembly.instantiate(module, imports);
    for (const value of Object.values(core.exports))
      if (value instanceof WebAssembly.Memory) memories.push(value);
    return core;
  },
);
const router = instance[ROUTER_EXPORT]!;

/** A WIT `result`'s error case arrives as `{tag, val}`, or wrapped in jco's ComponentError. */
function variantOf(err: unknown): { tag: string; val: string } | undefined {
  const candidate = typeof err === "object" && err !== null && "payload" in err ? err.payload : err;
  if (typeof candidate !== "object" || candidate === null) return undefined;
  const { tag, val } = candidate as { tag?: unknown; val?: unknown };
  return typeof tag === "string" && typeof val === "string" ? { tag, val } : undefined;
}

const memoryBytes = () => memories.reduce((sum, memory) => sum + memory.buffer.byteLength, 0);

function answer(request: WorkerRequest): WorkerReply {
  const { id, method, args } = request;
  try {
    const call = router[method] as (...a: unknown[]) => unknown;
    const value = call(...args);
    return { id, outcome: "ok", value, memoryBytes: memoryBytes() };
  } catch (err) {
    const variant = variantOf(err);
    if (variant) return { id, outcome: "error", ...variant, memoryBytes: memoryBytes() };
    const message = err instanceof Error ? err.message : String(err);
    return { id, outcome: "trap", message, memoryBytes: memoryBytes() };
  }
}

port.on("message", (request: WorkerRequest) => port.postMessage(answer(request)));
port.postMessage({ ready: true } satisfies WorkerReply);
