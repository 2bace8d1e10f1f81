/**
 * A sandbox worker thread: scripts run here, in QuickJS compiled to
 * WebAssembly, so a script that computes holds this thread and never the
 * broker's. Several runs share the thread, each in a runtime of its own.
 */
import { parentPort } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import type { FromWorker, ToWorker } from "./protocol.js";
import { runScript, type ScriptRun } from "./run-script.js";

const port = parentPort;
if (port === null) throw new Error("sandbox-worker runs as a worker thread");

const quickjs = await newQuickJSWASMModuleFromVariant(
  import("@jitl/quickjs-wasmfile-release-sync"),
);
const runs = new Map<number, { run: ScriptRun; answers: Map<number, (json: string) => void> }>();
const send = (message: FromWorker) => port.postMessage(message);

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "run": {
      const stop = new Int32Array(message.stop);
      const answers = new Map<number, (json: string) => void>();
      let seq = 0;
      const run = runScript(quickjs, message.code, message.limits, {
        ask: (op, json) =>
          new Promise<string>((resolve) => {
            const id = ++seq;
            answers.set(id, resolve);
            send({ type: "ask", run: message.run, seq: id, op, json });
          }),
        shouldStop: () => Atomics.load(stop, 0) !== 0 || Date.now() > message.deadline,
      });
      runs.set(message.run, { run, answers });
      void run.outcome.then((outcome) => {
        runs.delete(message.run);
        send({ type: "done", run: message.run, outcome });
      });
      return;
    }
    case "answer": {
      const answers = runs.get(message.run)?.answers;
      answers?.get(message.seq)?.(message.json);
      answers?.delete(message.seq);
      return;
    }
    case "cancel":
      runs.get(message.run)?.run.stop();
      return;
  }
});
send({ type: "ready" });
