/**
 * A sandbox worker thread: scripts run here, in QuickJS compiled to
 * WebAssembly, so a script that computes holds this thread and never the
 * broker's. Several runs share the thread, each in an engine of its own,
 * kept afterwards for its caller's next run where it stayed small.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadEngine } from "./engine.js";
import { EnginePool } from "./engine-pool.js";
import type { FromWorker, ScriptOutcome, ToWorker } from "./protocol.js";
import { runScript, type ScriptRun } from "./run-script.js";

const port = parentPort;
if (port === null) throw new Error("sandbox-worker runs as a worker thread");

const engines = new EnginePool(await loadEngine(), Number(workerData ?? 0));
interface RunHere {
  run?: ScriptRun;
  readonly answers: Map<number, (json: string) => void>;
}
const runs = new Map<number, RunHere>();
const send = (message: FromWorker) => port.postMessage(message);

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "run": {
      const stop = new Int32Array(message.stop);
      const here: RunHere = { answers: new Map() };
      runs.set(message.run, here);
      let seq = 0;
      const ended = (outcome: ScriptOutcome) => {
        runs.delete(message.run);
        send({ type: "done", run: message.run, outcome });
      };
      const { owner, limits } = message;
      void engines.take(owner, limits.memoryBytes).then(
        (engine) => {
          const run = runScript(engine, message.code, limits, {
            ask: (op, json) =>
              new Promise<string>((resolve) => {
                const id = ++seq;
                here.answers.set(id, resolve);
                send({ type: "ask", run: message.run, seq: id, op, json });
              }),
            shouldStop: () => Atomics.load(stop, 0) !== 0 || Date.now() > message.deadline,
          });
          here.run = run;
          void run.outcome.then((outcome) => {
            ended(outcome);
            engines.give(owner, limits.memoryBytes, engine, run.sound());
          });
        },
        (err: Error) =>
          ended({
            ok: false,
            kind: "script_error",
            message: `the sandbox could not start: ${err.message}`,
            logs: [],
          }),
      );
      return;
    }
    case "answer": {
      const answers = runs.get(message.run)?.answers;
      answers?.get(message.seq)?.(message.json);
      answers?.delete(message.seq);
      return;
    }
    case "cancel":
      runs.get(message.run)?.run?.stop();
      return;
  }
});
send({ type: "ready" });
