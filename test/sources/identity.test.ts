import type { z } from "zod";
import { describe, expect, it } from "vitest";
import { SOURCE_KINDS } from "../../src/sources/kinds.js";

/** Fields the tree applies to a source's tools: a change of one rebuilds the tree only. */
const TREE_FIELDS = ["name", "tool_filter", "tool_overrides", "path_aliases"];
/** What a kind reads beyond its config needs this much of it (the component file, for its time). */
const BASE: Record<string, Record<string, unknown>> = { wasm: { component: "/nowhere.wasm" } };

describe("a source's identity", () => {
  it.each(SOURCE_KINDS.map((kind) => [kind.backend, kind] as const))(
    "%s: changes with every field of its config but the tree's",
    (_backend, kind) => {
      const fields = Object.keys((kind.configSchema as unknown as z.ZodObject).shape);
      expect(fields.length).toBeGreaterThan(TREE_FIELDS.length);
      const base = { backend: kind.backend, ...BASE[kind.backend] };
      const before = kind.identity(base);
      for (const field of fields.filter((f) => f !== "backend")) {
        const value =
          field in base
            ? `${String(base[field as keyof typeof base])}-changed`
            : { changed: field };
        const changed = kind.identity({ ...base, [field]: value } as never);
        if (TREE_FIELDS.includes(field)) expect(changed, field).toBe(before);
        else expect(changed, field).not.toBe(before);
      }
    },
  );

  it("an http source's credentials are part of it: a rotated client secret restarts it", () => {
    const http = SOURCE_KINDS.find((k) => k.backend === "http")!;
    const source = (secret: string) => ({
      backend: "http",
      url: "https://mcp.example.com/mcp",
      auth: { client_credentials: { client_id: "broker", client_secret: secret } },
    });
    expect(http.identity(source("old"))).not.toBe(http.identity(source("new")));
  });
});
