import { readdirSync, readFileSync } from "node:fs";
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
  policy: 3,
  toolsets: 3,
  registry: 3,
  "tool-search": 3,
  sources: 4,
  broker: 5,
  frontends: 6,
  serve: 7,
  cli: 7,
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

describe("the frontends", () => {
  it("set no deadline of their own: a request's timeout is the policy's", () => {
    const inventing = [...imports.keys()]
      .filter((file) => layerOf(file) === "frontends")
      .filter((file) => /\bdeadline\s*:/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(inventing).toEqual([]);
  });
});
