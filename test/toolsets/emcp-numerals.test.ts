import Database from "better-sqlite3";
import fc from "fast-check";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from "kysely";
import { createPool } from "mysql2";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineSql } from "../../src/toolsets/emcp/engine/engine-sql.js";
import { mysqlSql } from "../../src/toolsets/emcp/engine/mysql.js";
import { postgresSql } from "../../src/toolsets/emcp/engine/postgres.js";
import { addSqliteFunctions, sqliteSql } from "../../src/toolsets/emcp/engine/sqlite.js";
import type { TvCast } from "../../src/toolsets/emcp/tools/tv-cast.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { engineAvailable, MARIADB_URL, POSTGRES_URL } from "../helpers/services.js";

/**
 * The number a TV value holds under a cast, read by each engine's own SQL
 * (SQLite's through a JavaScript function with fast paths of its own), must
 * be the same number on every engine, or none on every engine.
 */
type Engine = { name: string; db: Kysely<object>; sql: EngineSql };
const engines: Engine[] = [];

beforeAll(async () => {
  const sqlite = new Database(":memory:");
  addSqliteFunctions(sqlite);
  engines.push({
    name: "sqlite",
    db: new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }),
    sql: sqliteSql,
  });
  if (await engineAvailable("MariaDB", 3306)) {
    const pool = createPool({ uri: MARIADB_URL, connectionLimit: 1 });
    engines.push({
      name: "mariadb",
      db: new Kysely({ dialect: new MysqlDialect({ pool }) }),
      sql: mysqlSql,
    });
  }
  if (await engineAvailable("PostgreSQL", 5432)) {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
    engines.push({
      name: "postgres",
      db: new Kysely({ dialect: new PostgresDialect({ pool }) }),
      sql: postgresSql,
    });
  }
  for (const engine of engines)
    await sql`create table ${sql.table(TABLE)} (id integer primary key, v varchar(64))`.execute(
      engine.db,
    );
});
afterAll(async () => {
  for (const engine of engines) {
    await sql`drop table ${sql.table(TABLE)}`.execute(engine.db);
    await engine.db.destroy();
  }
});

/**
 * Read from a table, as a search reads TV values: PostgreSQL folds a bound
 * constant at planning time, so the cast a CASE guards would fail there.
 */
const TABLE = `numerals_${Date.now().toString(36)}`;
let nextId = 0;
async function numberOn(engine: Engine, text: string, cast: TvCast): Promise<number | null> {
  const id = ++nextId;
  await sql`insert into ${sql.table(TABLE)} (id, v) values (${id}, ${text})`.execute(engine.db);
  const { rows } = await sql<{
    n: unknown;
  }>`select ${engine.sql.numberOf(sql.ref("v"), cast)} as n from ${sql.table(TABLE)} where id = ${id}`.execute(
    engine.db,
  );
  const n = rows[0]!.n;
  // Drivers hand numbers back as JavaScript numbers, BigInts or decimal strings; -0 is 0.
  return n === null ? null : Number(n) + 0;
}

const digits = (min: number, max: number) =>
  fc
    .array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max })
    .map((d) => d.join(""));
const numeral = fc
  .tuple(fc.constantFrom("", "-"), fc.oneof(digits(1, 4), digits(14, 19)), fc.option(digits(0, 6)))
  .map(([sign, whole, fraction]) => `${sign}${whole}${fraction === null ? "" : `.${fraction}`}`);
const text = fc.oneof(
  { weight: 4, arbitrary: numeral },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...["", "n/a", "1e3", " 12", "12\n", "0x1A", "+5", "-", ".5", "5.", "1.2.3", "1..2"],
      ...["--1", "1-", "-0.5.", "-.5", "１２", "١٢", "12 ", "0.0", "-0", "007"],
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const cast: fc.Arbitrary<TvCast> = fc.oneof(
  fc.constantFrom<TvCast>({ type: "UNSIGNED" }, { type: "SIGNED" }),
  fc
    .integer({ min: 1, max: 20 })
    .chain((precision) =>
      fc
        .integer({ min: 0, max: Math.min(precision, 6) })
        .map((scale): TvCast => ({ type: "DECIMAL", precision, scale })),
    ),
);

describe("a TV value read as a number", () => {
  it("is the same number, or none, on every engine", async () => {
    await fc.assert(
      fc.asyncProperty(text, cast, async (value, as) => {
        const [first, ...others] = await Promise.all(engines.map((e) => numberOn(e, value, as)));
        for (const other of others) expect(other).toEqual(first);
      }),
      { seed: 5, numRuns: fuzzRuns(400) },
    );
  });

  it("holds no number beyond a numeral's 18 integer digits, whatever room the precision leaves", async () => {
    for (const engine of engines) {
      expect(
        await numberOn(engine, "1000000000000000000", { type: "DECIMAL", precision: 19, scale: 0 }),
        engine.name,
      ).toBeNull();
      expect(
        await numberOn(engine, "8000000000000000000.5", {
          type: "DECIMAL",
          precision: 25,
          scale: 2,
        }),
        engine.name,
      ).toBeNull();
      expect(
        await numberOn(engine, "800000000000000000", { type: "DECIMAL", precision: 25, scale: 2 }),
        engine.name,
      ).toBe(8e17);
    }
  });

  it("on SQLite: reads in SQL what emcp_number reads, for numbers as SQLite writes them", async () => {
    const [sqlite] = engines;
    const written = fc.oneof(
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.integer({ min: -100_000, max: 100_000 }).map((n) => String(n / 4)),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc
        .tuple(fc.double({ min: -1e16, max: 1e16, noNaN: true }), fc.integer({ min: 0, max: 8 }))
        .map(([n, places]) => n.toFixed(places)),
      text,
    );
    const slow = (as: TvCast) =>
      as.type === "DECIMAL"
        ? sql`emcp_number(v, 1, ${as.precision}, ${as.scale})`
        : sql`emcp_number(v, ${as.type === "SIGNED" ? 1 : 0}, 0, -1)`;
    await fc.assert(
      fc.asyncProperty(written, cast, async (value, as) => {
        const id = ++nextId;
        await sql`insert into ${sql.table(TABLE)} (id, v) values (${id}, ${value})`.execute(
          sqlite!.db,
        );
        const { rows } = await sql<{ fast: unknown; slow: unknown }>`select
          ${sqliteSql.numberOf(sql.ref("v"), as)} as fast, ${slow(as)} as slow
          from ${sql.table(TABLE)} where id = ${id}`.execute(sqlite!.db);
        const { fast, slow: expected } = rows[0]!;
        expect(fast === null ? null : Number(fast) + 0).toEqual(
          expected === null ? null : Number(expected) + 0,
        );
      }),
      { seed: 6, numRuns: fuzzRuns(3000) },
    );
  });

  it("on SQLite: a filter that compares the quick reading first keeps the rows the exact one keeps", async () => {
    const [sqlite] = engines;
    const integerCast = fc.constantFrom<TvCast>({ type: "UNSIGNED" }, { type: "SIGNED" });
    const op = fc.constantFrom("=", "!=", ">", ">=", "<", "<=");
    const bound = fc.oneof(
      fc.integer({ min: -3000, max: 3000 }),
      fc.integer({ min: -12_000, max: 12_000 }).map((n) => n / 4),
      fc.double({ min: -1e19, max: 1e19, noNaN: true }),
    );
    const written = fc.oneof(
      text,
      fc.integer({ min: -3000, max: 3000 }).map(String),
      fc.integer({ min: -12_000, max: 12_000 }).map((n) => String(n / 4)),
    );
    await fc.assert(
      fc.asyncProperty(written, integerCast, op, bound, async (value, as, compare, x) => {
        const id = ++nextId;
        await sql`insert into ${sql.table(TABLE)} (id, v) values (${id}, ${value})`.execute(
          sqlite!.db,
        );
        const v = sql.ref<string | null>("v");
        const quick = sqliteSql.quickNumberOf!(v, as)!;
        const exact = sqliteSql.numberOf(v, as);
        const { rows } = await sql<{ alone: number; both: number }>`select
          coalesce(${exact} ${sql.raw(compare)} ${x}, 0) as alone,
          coalesce(${quick} ${sql.raw(compare)} ${x} and ${exact} ${sql.raw(compare)} ${x}, 0) as both
          from ${sql.table(TABLE)} where id = ${id}`.execute(sqlite!.db);
        expect(rows[0]!.both).toBe(rows[0]!.alone);
      }),
      { seed: 7, numRuns: fuzzRuns(3000) },
    );
  });

  it("on SQLite: truncates, rounds half away from zero and knows its precision", async () => {
    const [sqlite] = engines;
    const decimal = (precision: number, scale: number): TvCast => ({
      type: "DECIMAL",
      precision,
      scale,
    });
    expect(await numberOn(sqlite!, "-0.5", { type: "SIGNED" })).toBe(0);
    expect(await numberOn(sqlite!, "007.9", { type: "UNSIGNED" })).toBe(7);
    expect(await numberOn(sqlite!, "-7.9", { type: "UNSIGNED" })).toBeNull();
    expect(await numberOn(sqlite!, "2.675", decimal(5, 2))).toBe(2.68);
    expect(await numberOn(sqlite!, "-2.675", decimal(5, 2))).toBe(-2.68);
    expect(await numberOn(sqlite!, "99.5", decimal(3, 1))).toBe(99.5);
    expect(await numberOn(sqlite!, "99.95", decimal(3, 1))).toBeNull();
    expect(await numberOn(sqlite!, "100", decimal(3, 1))).toBeNull();
    expect(await numberOn(sqlite!, "000.5", decimal(1, 1))).toBe(0.5);
  });
});
