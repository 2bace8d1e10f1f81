/**
 * The child's side of a job process: answers one job at a time with
 * `handle`, and refuses to send a reply larger than the broker allows, so a
 * job's result is bounded before it leaves the child. Imported only by a
 * job process's entry file.
 */
import { serialize } from "node:v8";
import { BrokerError } from "../contract/errors.js";
import type { JobProcessSettings, JobReply, JobRequest, ReadyMessage } from "./job-protocol.js";

/**
 * Serves jobs over the IPC channel until the broker goes away. A BrokerError
 * thrown by `handle` reaches the caller as it is; anything else is reported
 * as an internal failure, its message on stderr for the broker's log only.
 *
 * @example
 * serveJobs((job) => evaluate(job as string));
 */
export function serveJobs(handle: (job: unknown) => unknown): void {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("a job process must be started with an IPC channel");
  const settings = JSON.parse(process.argv[2] ?? "{}") as Partial<JobProcessSettings>;
  const maxReplyBytes = settings.maxReplyBytes ?? Number.MAX_SAFE_INTEGER;

  const answer = async ({ id, job }: JobRequest): Promise<JobReply> => {
    try {
      const reply: JobReply = { id, ok: true, value: await handle(job) };
      const size = serialize(reply).length;
      if (size <= maxReplyBytes) return reply;
      return {
        id,
        ok: false,
        failure: {
          kind: "too_large",
          message: `the result is ${size} bytes, over the ${maxReplyBytes} bytes a result may have here; ask for less`,
          details: { size, max_bytes: maxReplyBytes },
        },
      };
    } catch (err) {
      if (err instanceof BrokerError) {
        return { id, ok: false, failure: err.toJSON() };
      }
      process.stderr.write(`job failed: ${(err as Error)?.stack ?? String(err)}\n`);
      return { id, ok: false, failure: { kind: "internal", message: "the job failed" } };
    }
  };

  process.on("message", (request: JobRequest) => {
    void answer(request).then((reply) => send(reply));
  });
  // The broker is gone (or closed the channel): nothing will ask again.
  process.on("disconnect", () => process.exit(0));
  send({ ready: true } satisfies ReadyMessage);
}
