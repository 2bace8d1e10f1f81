import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The layers of docs/ARCHITECTURE.md, lowest first: a file imports its own
 * layer and the ones below, never one above, and no file imports a file that
 * imports it back.
 */
const RANK: Record<string, number> = {
  contract: 0,
  config: 1,
  state: 1,
  telemetry: 1,
  isolation: 1,
  auth: 2,
  tree: 2,
  output: 2,
  net: 2,
  tasks: 2,
  pinning: 2,
  policy: 3,
  toolsets: 3,
  registry: 3,
  "tool-search": 3,
  sources: 4,
  broker: 5,
  frontends: 6,
  app: 7,
  connect: 7,
  "mcp-registry": 7,
  cli: 8,
  main: 9,
  "export-config-schema": 7,
};

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

const imports = new Map(
  sources(SRC).map((file) => [
    file,
    [...readFileSync(file, "utf8").matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)].map((m) =>
      resolve(dirname(file), m[1]!).replace(/\.js$/, ".ts"),
    ),
  ]),
);
const layerOf = (file: string) => relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");

describe("the layers", () => {
  it("every top-level folder of src/ has a place", () => {
    for (const file of imports.keys()) expect(RANK[layerOf(file)], file).toBeDefined();
  });

  it("imports run downward only", () => {
    const upward = [...imports].flatMap(([file, deps]) =>
      deps
        .filter((dep) => RANK[layerOf(dep)]! > RANK[layerOf(file)]!)
        .map((dep) => `${relative(SRC, file)} -> ${relative(SRC, dep)}`),
    );
    expect(upward).toEqual([]);
  });

  it("no file imports a file that imports it back", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, "open");
      stack.push(file);
      for (const dep of imports.get(file) ?? []) {
        if (!imports.has(dep)) continue;
        if (state.get(dep) === "open")
          cycles.push(
            [...stack.slice(stack.indexOf(dep)), dep].map((f) => relative(SRC, f)).join(" -> "),
          );
        else if (!state.has(dep)) visit(dep);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of imports.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});

const FRONTENDS = join(SRC, "frontends");
/** The frontend a file belongs to (`mcp`, `rest`…), or undefined outside them. */
const frontendOf = (file: string) =>
  file.startsWith(FRONTENDS + "/") ? relative(FRONTENDS, file).split("/")[0] : undefined;
/** What of a frontend others may import: its index, or a middleware's index in `http/`. */
const isFace = (file: string) => {
  const inside = relative(FRONTENDS, file).split("/");
  return inside[0] === "http"
    ? inside.length === 3 && inside[2] === "index.ts"
    : inside[1] === "index.ts";
};

describe("the frontends", () => {
  it("import nothing of another frontend but its face", () => {
    const reaching = [...imports].flatMap(([file, deps]) =>
      deps
        .filter((dep) => frontendOf(dep) !== undefined && frontendOf(dep) !== frontendOf(file))
        .filter((dep) => !isFace(dep))
        .map((dep) => `${relative(SRC, file)} -> ${relative(SRC, dep)}`),
    );
    expect(reaching).toEqual([]);
  });

  it("http/ holds middleware only, each a folder with its index and its test", () => {
    const http = readdirSync(join(FRONTENDS, "http"), { withFileTypes: true });
    expect(http.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
    for (const folder of http)
      expect(readdirSync(join(FRONTENDS, "http", folder.name)).sort(), folder.name).toEqual(
        expect.arrayContaining(["index.test.ts", "index.ts"]),
      );
  });

  it("MCP shows its three concerns as folders, the protocol apart from how it travels", () => {
    const mcp = join(FRONTENDS, "mcp");
    const folders = readdirSync(mcp, { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(folders.map((e) => e.name).sort()).toEqual(["protocol", "shared", "transport"]);
    const protocolToTransport = [...imports].flatMap(([file, deps]) =>
      file.startsWith(join(mcp, "protocol") + "/")
        ? deps
            .filter((d) => d.startsWith(join(mcp, "transport") + "/"))
            .map((d) => `${relative(SRC, file)} -> ${relative(SRC, d)}`)
        : [],
    );
    expect(protocolToTransport).toEqual([]);
  });

  it("set no deadline of their own: a request's timeout is the policy's", () => {
    const inventing = [...imports.keys()]
      .filter((file) => layerOf(file) === "frontends")
      .filter((file) => /\bdeadline\s*:/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(inventing).toEqual([]);
  });
});

describe("objects are built whole", () => {
  it("no field is assigned after construction under a definite-assignment assertion (name!:)", () => {
    const late = [...imports.keys()].flatMap((file) =>
      [
        ...readFileSync(file, "utf8").matchAll(
          /^\s+(?:(?:private|protected|public|readonly)\s+)*(\w+)!:/gm,
        ),
      ].map((m) => `${relative(SRC, file)}: ${m[1]}`),
    );
    expect(late).toEqual([]);
  });
});

describe("one SDK generation", () => {
  it("MCP types and schemas come from the v2 packages; v1 only for the deprecated HTTP+SSE transport", () => {
    const onV1 = [...imports.keys()]
      .filter((file) => /from\s+"@modelcontextprotocol\/sdk[/"]/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(onV1).toEqual(["frontends/mcp/transport/legacy-sse.ts"]);
  });

  it("no local class stands in for one the SDK exports", async () => {
    const sdk = new Set([
      ...Object.keys(await import("@modelcontextprotocol/server")),
      ...Object.keys(await import("@modelcontextprotocol/client")),
    ]);
    const twins = [...imports.keys()].flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^(?:export\s+)?class\s+(\w+)/gm)]
        .filter((m) => sdk.has(m[1]!))
        .map((m) => `${relative(SRC, file)}: ${m[1]}`),
    );
    expect(twins).toEqual([]);
  });
});

describe("the built-in toolsets", () => {
  it("each declares its own settings in its folder, and the config assembles them from the list", () => {
    const toolsets = join(SRC, "toolsets");
    const kinds = readFileSync(join(toolsets, "kinds.ts"), "utf8");
    const unlisted = readdirSync(toolsets, { withFileTypes: true })
      // The CMS's engine is served by the emcp source kind, whose config is the source's own.
      .filter((e) => e.isDirectory() && e.name !== "emcp")
      .map((e) => e.name)
      .filter(
        (name) =>
          !existsSync(join(toolsets, name, "index.ts")) || !kinds.includes(`./${name}/index.js`),
      );
    expect(unlisted).toEqual([]);
    const config = readFileSync(join(SRC, "config/schema.ts"), "utf8");
    expect(config).not.toMatch(/\b(calculator|documents|searxng_url|provider|max_pages)\s*:/);
  });
});
