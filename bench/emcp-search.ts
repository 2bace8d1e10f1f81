/**
 * `npm run bench` (second part): `evo.content.search` over a 100k-document
 * demo database, through the broker's `/mcp/<name>` endpoint (with the SDK's
 * client, and with a minimal one that only reads the answer), beside the same
 * search written by hand as one SQL query through the engine's own driver.
 * SQLite always, MariaDB and PostgreSQL when they answer. Prints a Markdown report.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createPool } from "mysql2/promise";
import pg from "pg";
import { DEMO_TVS, generateDemo } from "../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../src/toolsets/emcp/open-database.js";
import { EVO_TABLES } from "../src/toolsets/emcp/schema.js";
import { broker, stopChildren } from "./processes.js";
import { rawToolCaller } from "./raw-mcp-client.js";
import { sequential } from "./stats.js";
import { machineLine } from "./machine.js";

const DOCS = Number(process.env.BENCH_EMCP_DOCS ?? 100_000);
const CALLS = Number(process.env.BENCH_EMCP_CALLS ?? 100);
const ROUNDS = 3;
const MARIADB = "mysql://root@127.0.0.1:3306/test";
const POSTGRES = "postgres://postgres@127.0.0.1:5432/test";
const PREFIX = "bench_";
/** `BENCH_EMCP_ENGINES=postgres,mariadb` measures only those (default: every one that answers). */
const ONLY = process.env.BENCH_EMCP_ENGINES?.split(",");

/** How a developer reads a numeral on one engine, in SQL written by hand. */
interface HandNumerals {
  integerOf(value: string): string;
  decimalOf(value: string): string;
  /** The placeholder of the nth parameter (from 1). */
  param(n: number): string;
}

/** A search as the tool is asked it, and as a developer would write it for each engine. */
interface Search {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly params: (string | number)[];
  /** The conditions and order after the two joins (`p` price, `k` colour). */
  readonly sql: (n: HandNumerals) => string;
}

const SEARCHES: Search[] = [
  {
    // The project's catalogue: two TV filters (one under a cast), a TV order under a cast.
    name: "catalogue",
    args: {
      tv_filters: [
        { tv: "price", op: ">=", value: 500, cast: "UNSIGNED" },
        { tv: "color", op: "=", value: "red" },
      ],
      tv_order: [{ tv: "price", dir: "desc", cast: "DECIMAL(10,2)" }],
      limit: 20,
    },
    params: [500, "red"],
    sql: (n) =>
      `WHERE c.deleted = 0 AND ${n.integerOf("p.value")} >= ${n.param(1)} AND k.value = ${n.param(2)}
       ORDER BY ${n.decimalOf("p.value")} DESC, c.id LIMIT 21`,
  },
  {
    // Shaped like a shop's listing: a price range under a cast, a colour list, cheapest first.
    name: "shop",
    args: {
      tv_filters: [
        { tv: "price", op: ">=", value: 200, cast: "UNSIGNED" },
        { tv: "price", op: "<=", value: 800, cast: "UNSIGNED" },
        { tv: "color", op: "in", value: ["red", "blue"] },
      ],
      tv_order: [{ tv: "price", dir: "asc", cast: "DECIMAL(10,2)" }],
      limit: 20,
    },
    params: [200, 800, "red", "blue"],
    sql: (n) =>
      `WHERE c.deleted = 0 AND ${n.integerOf("p.value")} BETWEEN ${n.param(1)} AND ${n.param(2)}
       AND k.value IN (${n.param(3)}, ${n.param(4)})
       ORDER BY ${n.decimalOf("p.value")} ASC, c.id LIMIT 21`,
  },
];

const COLUMNS =
  "c.id, c.parent, c.pagetitle, c.longtitle, c.description, c.alias, c.published, c.deleted, c.hidemenu, c.menuindex, c.template, c.createdon, c.editedon, c.pub_date, c.unpub_date, c.isfolder, c.type";
const handWritten = (search: Search, numerals: HandNumerals) => `
  SELECT ${COLUMNS} FROM ${PREFIX}site_content c
  JOIN ${PREFIX}site_tmplvar_contentvalues p ON p.contentid = c.id AND p.tmplvarid = ${DEMO_TVS.price}
  JOIN ${PREFIX}site_tmplvar_contentvalues k ON k.contentid = c.id AND k.tmplvarid = ${DEMO_TVS.color}
  ${search.sql(numerals)}`;

async function drop(spec: string): Promise<void> {
  const { db } = openDatabase(spec, { prefix: PREFIX });
  for (const table of [...EVO_TABLES].reverse())
    await db.schema.dropTable(table).ifExists().execute();
  await db.destroy();
}

async function fill(spec: string): Promise<void> {
  await drop(spec);
  const database = openDatabase(spec, { prefix: PREFIX });
  await generateDemo(database, PREFIX, DOCS);
  await database.db.destroy();
}

async function mcpCaller(
  port: number,
  name: string,
  search: Search,
): Promise<() => Promise<unknown>> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/${name}`)),
  );
  return async () => {
    const result = await client.callTool({ name: "evo.content.search", arguments: search.args });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
}

/** Whether a database server answers `SELECT 1` through a pool opened for the question. */
async function answers(pool: {
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}): Promise<boolean> {
  try {
    await pool.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await pool.end();
  }
}

type DirectCaller = (search: Search) => Promise<() => Promise<unknown>>;

async function main(): Promise<void> {
  const sqliteFile = join(mkdtempSync(join(tmpdir(), "mcp-broker-bench-emcp-")), "evo.sqlite");
  const engines: { name: string; spec: string; direct: DirectCaller }[] = [
    {
      name: "sqlite",
      spec: `sqlite:${sqliteFile}`,
      direct: async (search) => {
        const statement = new Database(sqliteFile, { readonly: true }).prepare(
          handWritten(search, {
            integerOf: (v) => `CAST(${v} AS INTEGER)`,
            decimalOf: (v) => `CAST(${v} AS REAL)`,
            param: () => "?",
          }),
        );
        // Synchronous: yield after each call, or the MCP client's idle keep-alive socket,
        // closed by the server meanwhile, is only noticed when the next call is sent on it.
        return async () => {
          statement.all(...search.params);
          await new Promise((resolve) => setImmediate(resolve));
        };
      },
    },
  ];
  if (await answers(createPool({ uri: MARIADB, connectionLimit: 1 }))) {
    engines.push({
      name: "mariadb",
      spec: MARIADB,
      direct: async (search) => {
        const pool = createPool({ uri: MARIADB, connectionLimit: 1 });
        const query = handWritten(search, {
          integerOf: (v) => `CAST(${v} AS UNSIGNED)`,
          decimalOf: (v) => `CAST(${v} AS DECIMAL(10,2))`,
          param: () => "?",
        });
        return async () => pool.execute(query, search.params);
      },
    });
  }
  if (await answers(new pg.Pool({ connectionString: POSTGRES, max: 1 }))) {
    // PostgreSQL refuses to cast text that is not a number: a developer guards the cast.
    const numeral = (v: string) =>
      `case when ${v} ~ '^-?[0-9]+([.][0-9]+)?$' then cast(${v} as numeric) end`;
    engines.push({
      name: "postgres",
      spec: POSTGRES,
      direct: async (search) => {
        const pool = new pg.Pool({ connectionString: POSTGRES, max: 1 });
        const query = handWritten(search, {
          integerOf: (v) => `trunc(${numeral(v)})`,
          decimalOf: (v) => `round(${numeral(v)}, 2)`,
          param: (n) => `$${n}`,
        });
        return async () => pool.query(query, search.params);
      },
    });
  }
  if (ONLY) engines.splice(0, engines.length, ...engines.filter((e) => ONLY.includes(e.name)));
  const filled: Record<string, number> = {};
  for (const engine of engines) {
    const t = performance.now();
    await fill(engine.spec);
    filled[engine.name] = (performance.now() - t) / 1000;
  }
  const { port } = await broker({
    tree: engines.map((e) => ({
      path: `/${e.name}`,
      source: { backend: "emcp", database: e.spec, table_prefix: PREFIX },
    })),
  });

  const lines = [
    machineLine(),
    `evo.content.search, ${DOCS} documents. p50 of ${CALLS} sequential calls, best of ${ROUNDS} interleaved rounds.`,
    ...SEARCHES.map((search) => `- ${search.name}: ${JSON.stringify(search.args)}`),
    "",
    "| engine | search | hand-written SQL, driver p50 ms | /mcp/<name>, SDK client p50 ms | ratio | raw client p50 ms | ratio | p99 ms (driver / SDK) | demo fill s |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
  ];
  for (const engine of engines) {
    for (const search of SEARCHES) {
      const callers = {
        direct: await engine.direct(search),
        sdk: await mcpCaller(port, engine.name, search),
        raw: await rawToolCaller(
          `http://127.0.0.1:${port}/mcp/${engine.name}`,
          "evo.content.search",
          search.args,
        ),
      };
      const best = {
        direct: { p50: Infinity, p99: Infinity },
        sdk: { p50: Infinity, p99: Infinity },
        raw: { p50: Infinity, p99: Infinity },
      };
      for (const caller of Object.values(callers)) await sequential(caller, 20);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, caller] of Object.entries(callers) as [
          keyof typeof callers,
          () => Promise<unknown>,
        ][]) {
          const measured = await sequential(caller, CALLS);
          if (measured.p50 < best[name].p50) best[name] = measured;
        }
      }
      const f = (n: number) => n.toFixed(3);
      const ratio = (n: number) => (n / best.direct.p50).toFixed(2);
      lines.push(
        `| ${engine.name} | ${search.name} | ${f(best.direct.p50)} | ${f(best.sdk.p50)} | ${ratio(best.sdk.p50)} | ${f(best.raw.p50)} | ${ratio(best.raw.p50)} | ${f(best.direct.p99)} / ${f(best.sdk.p99)} | ${filled[engine.name]!.toFixed(1)} |`,
      );
    }
  }
  console.log(lines.join("\n"));
  for (const engine of engines.filter((e) => e.name !== "sqlite")) await drop(engine.spec);
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
