import Database from "better-sqlite3";
import fc from "fast-check";
import { Kysely, SqliteDialect, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { keepingStatements } from "../../src/toolsets/emcp/engine/sqlite-statements.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/** A connection that counts what SQLite was asked to prepare. */
function counted(): { database: Database.Database; prepared: string[] } {
  const database = new Database(":memory:");
  const prepared: string[] = [];
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    prepared.push(source);
    return prepare(source);
  }) as typeof database.prepare;
  return { database, prepared };
}

describe("kept SQLite statements", () => {
  it("prepare a repeated query once, and answer it with each call's own values", async () => {
    const { database, prepared } = counted();
    const db = new Kysely<{ t: { n: number } }>({
      dialect: new SqliteDialect({ database: keepingStatements(database) }),
    });
    await sql`create table t (n integer)`.execute(db);
    await db
      .insertInto("t")
      .values([{ n: 1 }, { n: 2 }, { n: 3 }])
      .execute();
    const over = (n: number) => db.selectFrom("t").select("n").where("n", ">", n).execute();
    expect(await over(1)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await over(2)).toEqual([{ n: 3 }]);
    expect(await over(3)).toEqual([]);
    expect(prepared.filter((s) => s.startsWith("select"))).toHaveLength(1);
    // A table changed under a kept statement: SQLite prepares it again by itself.
    await sql`alter table t add column m integer`.execute(db);
    await db.insertInto("t").values({ n: 4 }).execute();
    expect(await over(3)).toEqual([{ n: 4 }]);
    await db.destroy();
  });

  it("keep the 200 last used, whatever the order of use", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 300, maxLength: 1500 }),
        (uses) => {
          const { database, prepared } = counted();
          const connection = keepingStatements(database);
          const recent: number[] = [];
          for (const n of uses) {
            const before = prepared.length;
            const statement = connection.prepare(`select ${n} as n`);
            expect(statement.all([])).toEqual([{ n }]);
            // Prepared again exactly when it is not among the 200 used last.
            const at = recent.indexOf(n);
            expect(prepared.length - before).toBe(at >= 0 ? 0 : 1);
            if (at >= 0) recent.splice(at, 1);
            recent.push(n);
            if (recent.length > 200) recent.shift();
          }
          connection.close();
        },
      ),
      { numRuns: fuzzRuns(30) },
    );
  });
});
