import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_TVS, generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { EVO_TABLES } from "../../src/toolsets/emcp/schema.js";
import { runCli } from "../helpers/cli.js";
import { engineAvailable, MARIADB_URL, POSTGRES_URL } from "../helpers/services.js";

const DOCS = 200;
const run = `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}_`;
const sqliteFile = () => join(mkdtempSync(join(tmpdir(), "mcp-broker-evo-")), "evo.sqlite");

/** Every table's rows, in key order, values as strings: equal on every engine for equal data. */
async function digest(spec: string, prefix: string): Promise<Record<string, string>> {
  const { db } = openDatabase(spec, { prefix });
  try {
    const out: Record<string, string> = {};
    for (const table of EVO_TABLES) {
      const rows = await db.selectFrom(table).selectAll().execute();
      const text = rows
        .map((r) =>
          Object.keys(r)
            .sort()
            .map((k) => `${k}=${String((r as Record<string, unknown>)[k])}`)
            .join(","),
        )
        .sort()
        .join("\n");
      out[table] = createHash("sha256").update(text).digest("hex");
    }
    return out;
  } finally {
    await db.destroy();
  }
}

async function generate(spec: string, prefix: string, docs = DOCS): Promise<void> {
  const database = openDatabase(spec, { prefix });
  const { db } = database;
  try {
    await generateDemo(database, prefix, docs);
  } finally {
    await db.destroy();
  }
}

describe("the eMCP demo database", () => {
  it("is the same for the same size, every time", async () => {
    const [a, b] = [sqliteFile(), sqliteFile()];
    await generate(`sqlite:${a}`, "evo_");
    await generate(`sqlite:${b}`, "evo_");
    expect(await digest(`sqlite:${a}`, "evo_")).toEqual(await digest(`sqlite:${b}`, "evo_"));
  });

  it("grows past the point where every recent document is four levels deep", async () => {
    const file = sqliteFile();
    await generate(`sqlite:${file}`, "evo_", 5000);
    const { db } = openDatabase(`sqlite:${file}`, { readOnly: true });
    const { count } = await db
      .selectFrom("site_content")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    const { deepest } = await db
      .selectFrom("site_content_closure")
      .select((eb) => eb.fn.max("depth").as("deepest"))
      .executeTakeFirstOrThrow();
    await db.destroy();
    expect(count).toBe(5000);
    expect(deepest).toBe(3);
  });

  it("has a consistent tree and closure table, TVs of every kind, tags, and filled secrets", async () => {
    const file = sqliteFile();
    await generate(`sqlite:${file}`, "evo_");
    const { db } = openDatabase(`sqlite:${file}`, { readOnly: true });
    try {
      const docs = await db.selectFrom("site_content").selectAll().execute();
      expect(docs).toHaveLength(DOCS);
      const closure = await db.selectFrom("site_content_closure").selectAll().execute();
      const parentOf = new Map(docs.map((d) => [d.id, d.parent]));
      for (const d of docs) {
        expect(closure).toContainEqual({ ancestor: d.id, descendant: d.id, depth: 0 });
        if (d.parent !== 0)
          expect(closure).toContainEqual({ ancestor: d.parent, descendant: d.id, depth: 1 });
      }
      for (const row of closure.filter((r) => r.depth > 0)) {
        let at = row.descendant;
        for (let i = 0; i < row.depth; i++) at = parentOf.get(at)!;
        expect(at).toBe(row.ancestor);
      }
      expect(
        docs.filter((d) => d.isfolder === 1).every((d) => docs.some((c) => c.parent === d.id)),
      ).toBe(true);
      expect(docs.some((d) => d.deleted === 1)).toBe(true);
      expect(docs.some((d) => d.published === 0)).toBe(true);
      const values = await db.selectFrom("site_tmplvar_contentvalues").selectAll().execute();
      const of = (tv: number) => values.filter((v) => v.tmplvarid === tv).map((v) => v.value);
      expect(of(DEMO_TVS.price).every((v) => Number.isFinite(Number(v)))).toBe(true);
      expect(of(DEMO_TVS.stock)).toContain("n/a");
      expect(of(DEMO_TVS.release_date).every((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))).toBe(true);
      expect(
        (await db.selectFrom("site_content_tags").selectAll().execute()).length,
      ).toBeGreaterThan(0);
      const user = await db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", 1)
        .executeTakeFirstOrThrow();
      expect(
        user.password &&
          user.cachepwd &&
          user.verified_key &&
          user.refresh_token &&
          user.access_token,
      ).toBeTruthy();
      const attributes = await db
        .selectFrom("user_attributes")
        .select("sessionid")
        .executeTakeFirstOrThrow();
      expect(attributes.sessionid).not.toBe("");
      await expect(
        db.insertInto("categories").values({ id: 99, category: "x", rank: 0 }).execute(),
      ).rejects.toThrow(/readonly/);
    } finally {
      await db.destroy();
    }
  });

  it.each([
    ["MariaDB", MARIADB_URL, 3306],
    ["PostgreSQL", POSTGRES_URL, 5432],
  ])(
    "loads the same rows into %s",
    async (name, url, port) => {
      if (!(await engineAvailable(name, port))) return;
      const file = sqliteFile();
      await generate(`sqlite:${file}`, run);
      await generate(url, run);
      try {
        expect(await digest(url, run)).toEqual(await digest(`sqlite:${file}`, run));
      } finally {
        const { db } = openDatabase(url, { prefix: run });
        for (const table of [...EVO_TABLES].reverse())
          await db.schema.dropTable(table).ifExists().execute();
        await db.destroy();
      }
    },
    60_000,
  );

  it("refuses a size out of range and a database it cannot read", async () => {
    await expect(generate(`sqlite:${sqliteFile()}`, "evo_", 5)).rejects.toThrow(
      "a demo database has 10 to 1,000,000 documents, not 5",
    );
    expect(() => openDatabase("oracle://x")).toThrow(
      "write sqlite:PATH, mysql://… or postgres://…",
    );
  });

  it("is written by `mcp-broker emcp demo-db`", async () => {
    const file = sqliteFile();
    const { code, stdout } = await runCli("emcp", "demo-db", file, "--docs", "50");
    expect(code).toBe(0);
    expect(stdout).toContain("50 documents written");
    expect(await digest(`sqlite:${file}`, "evo_")).toHaveProperty("site_content");
    const bad = await runCli("emcp", "demo-db", file, "--docs", "many");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("not NaN");
  });
});
