import { rmSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";
import { chromiumPath, expectAccessible, launch, screenshot } from "./browser.js";
import { bubblewrap } from "../helpers/bubblewrap.js";

/**
 * The console in Debian's Chromium, driven by role and name as a person
 * would use it: a broker with two fixture sources, an admin token and one
 * that sees `/fx` only.
 */
const admin = token("admin", ["*:/**"]);
const alice = token("alice", ["*:/fx/**"]);
const caller = token("caller", ["call:/ops/count"]);
const opsNeeds = join(mkdtempSync(join(tmpdir(), "console-ops-")), "ready");
let broker: TestBroker;
let browser: Browser;

const { bwrap } = bubblewrap();
const why = chromiumPath
  ? ""
  : "skipped: Chromium is not installed (apt-get install -y chromium; CI installs it)";

beforeAll(async () => {
  if (why) return;
  writeFileSync(opsNeeds, "yes");
  broker = await startBroker({
    registry: { predefined: false },
    redact: ["title"],
    auth: { tokens: configEntries(admin, alice, caller) },
    approvals: { rules: [{ path: "/ops/count" }], wait_s: 0 },
    pinning: "enforce",
    tree: [
      {
        path: "/fx",
        summary: "The test fixture",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["pid", "big", "fail"],
          tool_overrides: {
            big: { max_output_chars: 300, example_args: { chars: 400, items: 2 } },
          },
        },
      },
      ...(bwrap
        ? [
            {
              path: "/boxed",
              summary: "A server in its sandbox",
              source: {
                backend: "stdio",
                command: fixtureCommand(),
                tool_filter: ["pid"],
                sandbox: { memory_mb: 200 },
              },
            },
          ]
        : []),
      {
        path: "/notes",
        summary: "Notes, one of them poisoned",
        source: {
          backend: "stdio",
          command: [
            process.execPath,
            fileURLToPath(new URL("../fixtures/shifting-tools-server.mjs", import.meta.url)),
          ],
          env: { POISONED: "1" },
        },
      },
      {
        path: "/ops",
        summary: "Operations",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["pid", "count"],
          env: { FIXTURE_NEEDS_FILE: opsNeeds },
        },
      },
      // More children than one meta_tree answer lists.
      { path: "/many", summary: "A node with 120 children" },
      ...Array.from({ length: 120 }, (_, i) => ({ path: `/many/n${i}` })),
    ],
  });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await broker?.close();
});

/** A page signed in with `who`'s token, at `hash`. */
async function signedIn(who: { bearer: string }, hash = "#/tools"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(`${broker.url}/#/sign-in`);
  await page.getByLabel("Token").fill(who.bearer);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.url()).toContain("#/tools");
  if (hash !== "#/tools") await page.goto(`${broker.url}/${hash}`);
  page.on("close", () => expect(errors).toEqual([]));
  return page;
}

const pidOf = async (path: string) =>
  Number(
    (await broker.post("/meta_call", { path, args: {} }, bearer(admin))).body.output.content[0]
      .text,
  );

describe("the web console", () => {
  it.runIf(why === "")("asks for a token when auth is on, and refuses a wrong one", async () => {
    const page = await browser.newPage();
    await page.goto(`${broker.url}/`);
    await expect.poll(() => page.url()).toContain("#/sign-in");
    await expect(page.getByRole("heading", { name: "Sign in" }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshot(page, "sign-in");
    await page.getByLabel("Token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /not accept|credentials/i })
      .waitFor();
    await page.close();
  });

  it.runIf(why === "")(
    "browses to a tool and calls it from the playground, showing truncation, redaction and time",
    async () => {
      const page = await signedIn(admin);
      await page.getByRole("button", { name: "Expand /fx" }).click();
      await page.getByRole("link", { name: "big", exact: true }).click();
      await page.getByRole("heading", { name: "/fx/big" }).waitFor();
      await expect(page.getByLabel("chars").inputValue()).resolves.toBe("400");
      await expectAccessible(page);
      await page.getByRole("button", { name: "Call" }).click();
      const result = page.locator(".result");
      await result.getByText("took").waitFor();
      await expect(result.locator(".badge").allTextContents()).resolves.toEqual([
        "ok",
        "truncated",
        "redacted",
      ]);
      expect(await result.locator(".output").textContent()).not.toContain('"title"');
      await screenshot(page, "playground");

      // The same tool with arguments written as JSON: nothing to cut.
      await page.getByLabel("Edit as JSON").check();
      await page.getByLabel("Arguments (JSON)").fill('{"chars": 5, "items": 1}');
      await page.getByRole("button", { name: "Call" }).click();
      await result.getByText('"xxxxx"').waitFor();
      await expect(result.locator(".badge").allTextContents()).resolves.toEqual(["ok", "redacted"]);

      // Arguments the tool refuses: the policy's error, said as it is.
      await page.getByLabel("Arguments (JSON)").fill('{"chars": "many"}');
      await page.getByRole("button", { name: "Call" }).click();
      await result.getByRole("alert").filter({ hasText: "invalid_params" }).waitFor();
      await page.close();
    },
  );

  it.runIf(why === "")("finds a tool by search and opens its page", async () => {
    const page = await signedIn(admin);
    // Nothing found: the broker's notice says where to look.
    await page.getByRole("searchbox", { name: "Search tools" }).fill("zyzzyva quux");
    await page.getByRole("button", { name: "Search" }).click();
    await page
      .getByText(/^no tool matched a word of the query; .*browse \/ with meta_tree/)
      .waitFor();
    await page.getByRole("searchbox", { name: "Search tools" }).fill("process id");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: "/fx/pid" }).click();
    await page.getByRole("heading", { name: "/fx/pid" }).waitFor();
    await page.getByRole("button", { name: "Call" }).click();
    await page
      .locator(".result .output")
      .getByText(String(await pidOf("/fx/pid")))
      .waitFor();
    await expectAccessible(page);
    await screenshot(page, "search");
    await page.close();
  });

  it.runIf(why === "")(
    "runs a script with the user's token and shows its result, logs and calls",
    async () => {
      const page = await signedIn(admin, "#/run");
      await page.getByRole("heading", { name: "Run", exact: true }).waitFor();
      await expectAccessible(page);
      await page.getByLabel("Script").fill(
        `const p = await call("/fx/pid", {});
         try { await call("/fx/fail", {}); } catch (e) { console.warn(e.kind); }
         return { pid: Number(p[0].text) };`,
      );
      await page.getByRole("button", { name: "Run", exact: true }).click();
      const result = page.locator(".result");
      await result.getByText(/2 calls, took \d+ ms/).waitFor();
      await expect(result.locator(".badge").allTextContents()).resolves.toEqual(["ok"]);
      await expect(result.locator(".output:not(.logs)").textContent()).resolves.toContain(
        String(await pidOf("/fx/pid")),
      );
      await expect(result.locator(".logs").textContent()).resolves.toBe("warn: execution_failed");
      await expect(
        result
          .locator("table.calls tbody tr")
          .evaluateAll((rows) =>
            rows.map((r) => [...r.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)),
          ),
      ).resolves.toEqual([
        ["call", "/fx/pid", "ok"],
        ["call", "/fx/fail", "execution_failed"],
      ]);
      await expectAccessible(page);
      await screenshot(page, "run");

      // A script that fails says why, and where.
      await page.getByLabel("Script").fill("const x = 1;\nnope();");
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await result.getByRole("alert").filter({ hasText: "(line 2)" }).waitFor();
      await expect(result.locator(".badge").allTextContents()).resolves.toEqual(["script_error"]);
      await page.close();
    },
  );

  it.runIf(why === "")(
    "tells a token without the run scope that it may not run scripts",
    async () => {
      const page = await signedIn(alice, "#/run");
      await page.getByRole("alert").filter({ hasText: "run scope" }).waitFor();
      await page.close();
    },
  );

  it.runIf(why === "")("lists every child of a node that meta_tree gives in parts", async () => {
    const page = await signedIn(admin);
    const tree = page.getByRole("region", { name: "Tree" });
    await tree.getByRole("button", { name: "Expand /many" }).click();
    await tree.getByRole("link", { name: "n119", exact: true }).waitFor();
    await expect(tree.locator('a[href^="#/tools/many/"]').count()).resolves.toBe(120);
    // The node's own page lists them all too.
    await tree.getByRole("link", { name: "many", exact: true }).click();
    const listed = page.locator("ul.children li");
    await listed.filter({ hasText: "n119" }).waitFor();
    await expect(listed.count()).resolves.toBe(120);
    await page.close();
  });

  it.runIf(why === "")("says what is wrong with a path that is not in the tree", async () => {
    // A hash typed by hand, with a broken %-escape too.
    const page = await signedIn(admin, "#/tools/nowhere/%zz");
    await page.getByRole("heading", { name: "/nowhere/%zz" }).waitFor();
    await page.getByRole("alert").filter({ hasText: "/nowhere" }).waitFor();
    await page.close();
  });

  it.runIf(why === "")(
    "shows a source go down and come back",
    async () => {
      const page = await signedIn(admin, "#/health");
      const ops = page.locator('tr[data-source="/ops"]');
      await ops.getByText("up", { exact: true }).waitFor();
      await expectAccessible(page);
      // The backend dies and cannot start again until its file is back.
      rmSync(opsNeeds);
      process.kill(await pidOf("/ops/pid"), "SIGKILL");
      await ops
        .locator(".health")
        .filter({ hasText: /^(restarting|failed)$/ })
        .waitFor({ timeout: 10_000 });
      await expect(ops.locator(".last-error").textContent()).resolves.not.toBe("—");
      await screenshot(page, "health-down");
      writeFileSync(opsNeeds, "yes");
      await ops.locator(".health").filter({ hasText: /^up$/ }).waitFor({ timeout: 30_000 });
      expect(Number(await ops.locator("td").nth(1).textContent())).toBeGreaterThanOrEqual(1);
      await page.close();
    },
    60_000,
  );

  it.runIf(why === "")(
    "shows a call in the live stream, with its charts, and filters it",
    async () => {
      const page = await signedIn(admin, "#/traffic");
      await page.getByText("Live: new requests appear at the top.").waitFor();
      await broker.post("/meta_call", { path: "/fx/fail", args: {} }, bearer(alice));
      const row = page.locator("table.stream tbody tr").filter({ hasText: "/fx/fail" });
      await row.waitFor();
      await expect(row.locator("td").allTextContents()).resolves.toEqual([
        expect.any(String),
        "tools/call",
        "/fx/fail",
        "alice",
        "tool_error",
        expect.stringMatching(/^\d+\.\d$/),
      ]);
      await page.getByRole("heading", { name: "/fx", exact: true }).waitFor();
      await expect(page.getByRole("img", { name: /\/fx calls per second/ }).count()).resolves.toBe(
        1,
      );
      await page.getByLabel("Token").fill("admin");
      await row.waitFor({ state: "detached" });
      await page.getByLabel("Token").fill("alice");
      await row.waitFor();
      await expectAccessible(page);
      await screenshot(page, "traffic");
      await page.close();
    },
  );

  it.runIf(why === "")("shows a token only its own subtree, and no live traffic", async () => {
    const page = await signedIn(alice);
    const tree = page.getByRole("region", { name: "Tree" });
    await tree.getByRole("link", { name: "fx", exact: true }).waitFor();
    await expect(tree.getByRole("link", { name: "ops", exact: true }).count()).resolves.toBe(0);
    await expect(page.getByText("Signed in as alice").count()).resolves.toBe(1);
    await page.goto(`${broker.url}/#/traffic`);
    await page.getByRole("alert").filter({ hasText: "may not see the live traffic" }).waitFor();
    await page.goto(`${broker.url}/#/health`);
    await page.getByText("the details (state, restarts, last error) need an admin scope").waitFor();
    await expect(page.locator(".last-error").count()).resolves.toBe(0);
    await expectAccessible(page);
    await screenshot(page, "alice");
    await page.close();
  });

  it.runIf(why === "")(
    "shows a call waiting for approval to an approver, who approves it; the call runs once",
    async () => {
      const asked = await broker.post("/meta_call", { path: "/ops/count" }, bearer(caller));
      expect(asked.status).toBe(202);
      const page = await signedIn(admin, "#/approvals");
      const row = page.locator(`tr[data-task="${asked.body.task.id}"]`);
      await row.getByRole("rowheader", { name: "/ops/count" }).waitFor();
      await expect(row.getByRole("cell", { name: "caller", exact: true }).count()).resolves.toBe(1);
      await expectAccessible(page);
      await screenshot(page, "approvals");
      await row.getByLabel("Reason for /ops/count of caller").fill("looks fine");
      await row.getByRole("button", { name: "Approve" }).click();
      await page.getByText("No call is waiting for your approval.").waitFor();
      await expect
        .poll(async () => {
          const res = await fetch(`${broker.url}/tasks/${asked.body.task.id}`, {
            headers: bearer(caller),
          });
          const { task } = (await res.json()) as any;
          return `${task.status} ${task.result?.output.content[0].text} ${task.approval.reason}`;
        })
        .toBe("completed 1 looks fine");
      await page.close();
    },
  );

  it.runIf(why === "")(
    "shows an admin a held tool definition with its findings, and approving it brings the tool back",
    async () => {
      const page = await signedIn(admin, "#/approvals");
      const article = page.locator('article[data-path="/notes/read_notes"]');
      await article.getByText("hidden-tags in description").waitFor();
      await expect(article.locator(".badge").allTextContents()).resolves.toEqual([
        "suspicious",
        "held",
      ]);
      await expectAccessible(page);
      await screenshot(page, "definitions");
      await article
        .getByRole("button", { name: "Approve the definition of /notes/read_notes" })
        .click();
      await article.waitFor({ state: "detached" });
      const called = await broker.post(
        "/meta_call",
        { path: "/notes/read_notes", args: { topic: "t" } },
        bearer(admin),
      );
      expect(called.body.output.content[0].text).toBe("notes about t");
      await page.close();
    },
  );

  it.runIf(why === "" && bwrap !== undefined)(
    "shows what a sandboxed source may see and use on its node's page",
    async () => {
      const page = await signedIn(admin, "#/tools/boxed");
      const facts = page.locator("dl.source-facts");
      await facts.getByText("Sandbox").waitFor();
      await expect(facts.locator("dd").first().textContent()).resolves.toBe(
        "reads nothing; writes nothing; network none; 200 MB, 256 processes, 1024 open files",
      );
      await expectAccessible(page);
      await page.close();
    },
  );

  if (why) it.skip(why, () => undefined);
});
