import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, connectModern, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const alice = token("alice", ["call:/**", "tree:/**"]);
const bob = token("bob", ["approve:/**"]);

let broker: TestBroker;
const closing: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  broker = await startBroker({
    auth: { tokens: configEntries(alice, bob) },
    approvals: {
      rules: [{ path: "/fx/count" }, { path: "/fx/pid", approver: "caller" }],
      wait_s: 30,
    },
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
  });
});
afterAll(async () => {
  for (const c of closing) await c.close();
  await broker?.close();
});

async function approveFirstWaiting(): Promise<string> {
  for (;;) {
    const res = await fetch(`${broker.url}/tasks?status=awaiting_approval`, {
      headers: bearer(bob),
    });
    const { tasks } = (await res.json()) as { tasks: { id: string }[] };
    if (tasks.length > 0) {
      const approved = await fetch(`${broker.url}/tasks/${tasks[0]!.id}/approve`, {
        method: "POST",
        headers: bearer(bob),
      });
      expect(approved.status).toBe(200);
      return tasks[0]!.id;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("an MCP client whose call needs a person's approval", () => {
  it("waits for it, hears that it waits, and gets the result of the one approved run", async () => {
    const client = await connectHttp(broker.url, bearer(alice));
    closing.push(client);
    const progress: string[] = [];
    const call = client.callTool(
      { name: "meta_call", arguments: { path: "/fx/count", args: { note: "mcp" } } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? ""), timeout: 60_000 },
    );
    const id = await approveFirstWaiting();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("1");
    expect(progress[0]).toContain(id);
  });
});

describe("a rule whose approver is the caller", () => {
  it("asks the person at a 2025-era client by elicitation, and runs on yes only", async () => {
    const client = await connectHttp(broker.url, bearer(alice), {
      client: { capabilities: { elicitation: {} } },
    });
    closing.push(client);
    const asked: string[] = [];
    let answer = false;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approve: answer } };
    });
    // A refusal by policy, as every refusal is: a JSON-RPC error saying why.
    await expect(
      client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } }),
    ).rejects.toThrow(/did not approve \/fx\/pid \(answered no\)/);
    expect(asked[0]).toContain("Allow /fx/pid to run");
    answer = true;
    const ran = await client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } });
    expect(ran.isError).toBeFalsy();
    expect(Number(textOf(ran))).toBeGreaterThan(0);
  });

  it("asks a 2026-07-28 client through an input-required round", async () => {
    const client = await connectModern(broker.url, bearer(alice), {
      client: { capabilities: { elicitation: {} } },
    });
    closing.push(client);
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { approve: true },
    }));
    const ran = await client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } });
    expect(ran.isError).toBeFalsy();
  });

  it("refuses a client that cannot be asked, saying so", async () => {
    const client = await connectHttp(broker.url, bearer(alice));
    closing.push(client);
    await expect(
      client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } }),
    ).rejects.toThrow(/cannot be asked/);
  });
});

describe("a call whose approval does not come within approvals.wait_s", () => {
  it("is answered with its task and how to follow it, and nothing ran", async () => {
    const impatient = await startBroker({
      auth: { tokens: configEntries(alice, bob) },
      approvals: { rules: [{ path: "/fx/count" }], wait_s: 0 },
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
    });
    try {
      const client = await connectHttp(impatient.url, bearer(alice));
      closing.push(client);
      const result = await client.callTool({
        name: "meta_call",
        arguments: { path: "/fx/count", args: {} },
      });
      expect(result.isError).toBe(true);
      const { error } = JSON.parse(textOf(result));
      expect(error.kind).toBe("pending");
      expect(error.message).toContain(`GET /tasks/${error.details.task.id}`);
      expect(error.details.task.status).toBe("awaiting_approval");
    } finally {
      await impatient.close();
    }
  });
});
