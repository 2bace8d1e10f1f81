import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutSandboxes } from "../../src/app/demo.js";
import { whyNoSandbox } from "../../src/app/host-sandbox.js";
import type { Config, NodeConfig } from "../../src/config/schema.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { bubblewrap } from "../helpers/bubblewrap.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { why } = bubblewrap();
const root = process.getuid?.() === 0;

describe("whether this host can sandbox a source", () => {
  it.skipIf(why !== "" || !root)(
    "it can where bubblewrap is installed and the broker may make cgroups (root)",
    async () => {
      expect(await whyNoSandbox()).toBeUndefined();
    },
  );
  if (why !== "" || !root)
    console.warn(why || "skipped: making cgroups for a sandbox needs root, and this is not root");
});

/** Any sandbox a source may ask for. */
const sandbox = fc.oneof(
  fc.boolean(),
  fc.record({ memory_mb: fc.integer({ min: 16, max: 4096 }) }),
  fc.record({ network: fc.constant("all" as const) }),
);

/** A tree of nodes, some with a stdio source that may ask for a sandbox. */
const node: fc.Memo<NodeConfig> = fc.memo((depth) =>
  fc.record(
    {
      path: fc.constantFrom("/a", "b", "c/d"),
      summary: fc.string(),
      source: fc.option(
        fc.record(
          { backend: fc.constant("stdio"), command: fc.constant("srv"), sandbox },
          { requiredKeys: ["backend", "command"] },
        ),
        { nil: undefined },
      ),
      children: depth > 1 ? fc.array(node(depth - 1), { maxLength: 3 }) : fc.constant(undefined),
    },
    { requiredKeys: ["path"] },
  ),
);

/** `value` as JSON with every `sandbox` key taken out, at any depth. */
function unsandboxedJson(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => (key === "sandbox" ? undefined : v));
}

describe("the demo's config where the host cannot sandbox", () => {
  it("asks for no sandbox anywhere, and keeps everything else as it was", () => {
    fc.assert(
      fc.property(
        fc.array(node(3), { minLength: 1, maxLength: 4 }),
        fc.option(sandbox, { nil: undefined }),
        (tree, byDefault) => {
          const config = {
            tree,
            ...(byDefault !== undefined && { sandbox: { default: byDefault } }),
          } as Config;
          const before = JSON.stringify(config);
          const after = withoutSandboxes(config);
          expect(JSON.stringify(after)).toBe(unsandboxedJson(config));
          expect(JSON.stringify(after)).not.toContain('"sandbox"');
          // The config loaded is left as it was (it is reloaded and compared).
          expect(JSON.stringify(config)).toBe(before);
        },
      ),
      { numRuns: fuzzRuns(200), seed: 7 },
    );
  });

  it("is still a valid config: the demo's own, and one sandboxed by default and per source", () => {
    const demo = JSON.parse(readFileSync(join(ROOT, "examples", "demo.json"), "utf8")) as Config;
    const mixed = {
      sandbox: { default: true },
      tree: [
        { path: "/a", source: { backend: "stdio", command: "srv", sandbox: { network: "all" } } },
        { path: "/b", children: [{ path: "c", source: { backend: "stdio", command: "srv" } }] },
        {
          path: "/d",
          source: { backend: "command", tools: [{ name: "e", argv: ["echo"] }], sandbox: true },
        },
      ],
    } as unknown as Config;
    for (const config of [demo, mixed]) {
      expect(JSON.stringify(config)).toContain('"sandbox"');
      const after = withoutSandboxes(config);
      expect(ConfigSchema.safeParse(after).error).toBeUndefined();
      expect(JSON.stringify(after)).not.toContain('"sandbox"');
    }
  });
});
