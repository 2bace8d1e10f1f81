/**
 * Messages between the broker and the worker thread that holds one component
 * instance. The instance runs synchronously, so it lives off the event loop.
 */
import type { RouterExports } from "./wit/router-types.js";

/** What the worker needs to instantiate the component. */
export interface WorkerSetup {
  /** file: URL of the transpiled component's JavaScript. */
  readonly moduleUrl: string;
  /** The component's core modules, compiled once by the broker, by file name. */
  readonly coreModules: Readonly<Record<string, WebAssembly.Module>>;
  readonly sandbox: Sandbox;
}

/** What a component may reach: nothing unless granted. */
export interface Sandbox {
  /** Guest path → host folder. */
  readonly preopens: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string>>;
  readonly enableNetwork: boolean;
}

export type RouterMethod = keyof RouterExports;

export interface WorkerRequest {
  readonly id: number;
  readonly method: RouterMethod;
  readonly args: readonly unknown[];
}

/** After every call: how much linear memory the instance holds now, in bytes. */
interface Answer {
  readonly id: number;
  readonly memoryBytes: number;
}

export type WorkerReply =
  /** The worker instantiated the component and takes requests. */
  | { readonly ready: true }
  | (Answer & { readonly outcome: "ok"; readonly value: unknown })
  /** The guest returned the error case of a WIT `result`: `{tag, val}`. */
  | (Answer & { readonly outcome: "error"; readonly tag: string; readonly val: string })
  /** The guest trapped: the instance cannot be entered again. */
  | (Answer & { readonly outcome: "trap"; readonly message: string });
