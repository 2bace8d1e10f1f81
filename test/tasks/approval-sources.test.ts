import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditRecord } from "../../src/policy/audit/index.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/**
 * Approvals a tool's own annotations ask for (the real filesystem server's
 * write_file says destructiveHint), each step audited, and tasks forgotten
 * after tasks.ttl_s.
 */
const FILESYSTEM = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
    import.meta.url,
  ),
);
const writer = token("writer", ["call:/**", "tree:/**"]);
const reviewer = token("reviewer", ["approve:/files/**"]);
const soloist = token("soloist", ["call:/**", "approve:/files/**"]);
const folder = mkdtempSync(join(tmpdir(), "approved-files-"));
let broker: TestBroker;
const audit: AuditRecord[] = [];

beforeAll(async () => {
  broker = await startBroker({
    auth: { tokens: configEntries(writer, reviewer, soloist) },
    registry: { predefined: false },
    tasks: { ttl_s: 2 },
    approvals: { destructive: true, wait_s: 0, self_approval: true },
    tree: [
      {
        path: "/files",
        source: { backend: "stdio", command: [process.execPath, FILESYSTEM, folder] },
      },
    ],
  });
  broker.broker.onAudit((record) => audit.push(record));
});
afterAll(() => broker?.close());

const call = (path: string, args: Record<string, unknown>) =>
  broker.post("/meta_call", { path, args }, bearer(writer));

describe("approvals.destructive", () => {
  it("holds a tool that says destructiveHint until approved, and lets a read-only one run", async () => {
    const file = join(folder, "a.txt");
    const listed = await call("/files/list_allowed_directories", {});
    expect(listed.status).toBe(200);

    const asked = await call("/files/write_file", { path: file, content: "secret-7f3a" });
    expect(asked.status).toBe(202);
    expect(asked.body.task.approval).toMatchObject({ rule: "destructiveHint" });
    const id = asked.body.task.id;
    const approved = await broker.post(`/tasks/${id}/approve`, {}, bearer(reviewer));
    expect(approved.status).toBe(200);
    let task;
    do
      task = (
        await fetch(`${broker.url}/tasks/${id}`, { headers: bearer(writer) }).then(
          (r) => r.json() as Promise<any>,
        )
      ).task;
    while (task.status === "working");
    expect(task.status).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("secret-7f3a");

    // Delivered to the caller once, by its repeat of the call.
    expect((await call("/files/write_file", { path: file, content: "secret-7f3a" })).status).toBe(
      200,
    );

    const steps = audit.filter((r) => r.method === "task" && r.task_id === id);
    expect(steps.map((r) => [r.outcome, r.token])).toEqual([
      ["proposed", "writer"],
      ["approved", "reviewer"],
      ["executed", "writer"],
      ["delivered", "writer"],
    ]);
    // The approved run itself is an ordinary call record of its caller, args by digest only.
    const runs = audit.filter((r) => r.method === "tools/call" && r.path === "/files/write_file");
    expect(runs.map((r) => r.outcome)).toEqual(["pending", "ok", "ok"]);
    expect(JSON.stringify(audit)).not.toContain("secret-7f3a");
  });

  it("lets an approver approve their own call where self_approval says so", async () => {
    const asked = await broker.post(
      "/meta_call",
      { path: "/files/write_file", args: { path: join(folder, "own.txt"), content: "mine" } },
      bearer(soloist),
    );
    const own = await broker.post(`/tasks/${asked.body.task.id}/approve`, {}, bearer(soloist));
    expect(own.status).toBe(200);
    expect(own.body.task.approval.decided_by).toBe("soloist");
  });

  it("forgets a task after tasks.ttl_s", async () => {
    const asked = await call("/files/write_file", { path: join(folder, "b.txt"), content: "x" });
    const id = asked.body.task.id;
    const status = async () =>
      (await fetch(`${broker.url}/tasks/${id}`, { headers: bearer(writer) })).status;
    expect(await status()).toBe(200);
    await expect.poll(status, { timeout: 5000, interval: 200 }).toBe(404);
  });
});
