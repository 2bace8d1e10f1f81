import { sql, type Insertable, type Kysely } from "kysely";
import type { OpenedDatabase } from "../open-database.js";
import {
  EVO_TABLES,
  type EvoDatabase,
  type SiteContent,
  type SiteContentClosure,
  type SiteTmplvarContentvalue,
} from "../schema.js";
import { createTables } from "./create-tables.js";
import { SeededRandom } from "./random.js";

/** 2024-01-01T00:00:00Z: every demo timestamp counts from here. */
const EPOCH = 1_704_067_200;
const BATCH = 400;
const WORDS = [
  "alpha",
  "amber",
  "atlas",
  "birch",
  "cobalt",
  "delta",
  "ember",
  "fjord",
  "granite",
  "harbor",
  "indigo",
  "juniper",
];
const COLORS = ["red", "green", "blue", "black", "white"];

export const DEMO_TEMPLATES = { home: 1, page: 2, product: 3, news: 4 } as const;
/** TV ids, as the tests and the README refer to them. */
export const DEMO_TVS = {
  price: 1,
  stock: 2,
  rating: 3,
  release_date: 4,
  color: 5,
  tags: 6,
} as const;

/**
 * Fills an Evolution CMS 3 database with `docs` documents in a tree, the
 * closure table, templates, TVs with numeric, date and text values, TagSaver
 * tags, and users whose password and token columns are filled (so redaction
 * can be proven). Deterministic for a given `docs`; the same on every engine.
 * Ends by gathering the engine's statistics, so the first searches are
 * planned for the data that is there, not for empty tables.
 */
export async function generateDemo(
  { db, engine }: OpenedDatabase,
  prefix: string,
  docs: number,
): Promise<void> {
  if (!Number.isInteger(docs) || docs < 10 || docs > 1_000_000) {
    throw new Error(`a demo database has 10 to 1,000,000 documents, not ${docs}`);
  }
  const random = new SeededRandom(docs);
  await createTables(db, prefix);
  await db.transaction().execute(async (tx) => {
    await insertElements(tx);
    const content = documents(random, docs);
    await insertAll(tx, "site_content", content);
    await insertAll(tx, "site_content_closure", closure(content));
    await insertAll(tx, "site_tmplvar_contentvalues", tvValues(random, content));
    const tagged = content.filter(
      (d) => d.template === DEMO_TEMPLATES.product && random.chance(0.5),
    );
    await insertAll(
      tx,
      "site_content_tags",
      tagged.flatMap((d) =>
        [...new Set([random.int(1, 8), random.int(1, 8)])].map((tag) => ({
          doc_id: d.id,
          tag_id: tag,
          tv_id: DEMO_TVS.tags,
        })),
      ),
    );
  });
  await gatherStatistics(db, engine);
}

/**
 * Without statistics, PostgreSQL plans a search over 100,000 fresh rows as if
 * the tables were small (until autovacuum gets to them), and SQLite cannot
 * tell one TV's values from another's.
 */
async function gatherStatistics(db: Kysely<EvoDatabase>, engine: OpenedDatabase["engine"]) {
  const tables = sql.join(EVO_TABLES.map((table) => sql.table(table)));
  if (engine === "sqlite") await sql`analyze`.execute(db);
  else if (engine === "postgres") await sql`analyze ${tables}`.execute(db);
  else await sql`analyze table ${tables}`.execute(db);
}

function documents(random: SeededRandom, count: number): Insertable<EvoDatabase["site_content"]>[] {
  const sections = Math.max(3, Math.floor(count / 50));
  const docs: SiteContent[] = [];
  const depthOf = new Map<number, number>([[0, 0]]);
  const childCount = new Map<number, number>();
  for (let id = 1; id <= count; id++) {
    // Recent documents not yet four deep; when there are none, a section starts a new branch.
    const nearby = id <= sections ? [] : docs.slice(-400).filter((d) => depthOf.get(d.id)! < 4);
    const parent =
      id <= sections ? 0 : nearby.length > 0 ? random.pick(nearby).id : random.int(1, sections);
    depthOf.set(id, depthOf.get(parent)! + 1);
    const menuindex = childCount.get(parent) ?? 0;
    childCount.set(parent, menuindex + 1);
    const template =
      id === 1
        ? DEMO_TEMPLATES.home
        : parent === 0
          ? DEMO_TEMPLATES.page
          : random.pick([
              DEMO_TEMPLATES.page,
              DEMO_TEMPLATES.product,
              DEMO_TEMPLATES.product,
              DEMO_TEMPLATES.news,
            ]);
    const title = `${random.pick(WORDS)} ${random.pick(WORDS)} ${id}`;
    const createdon = EPOCH + id * 3600;
    docs.push({
      id,
      type: "document",
      contentType: "text/html",
      pagetitle: title.replace(/^./, (c) => c.toUpperCase()),
      longtitle: `${title} — long title`,
      description: `About ${title}`,
      alias: title.replace(/ /g, "-"),
      published: random.chance(0.9) ? 1 : 0,
      pub_date: random.chance(0.3) ? createdon + random.int(1, 30) * 86400 : 0,
      unpub_date: 0,
      parent,
      isfolder: 0,
      introtext: `Intro of ${title}.`,
      content: `<p>${title}: ${WORDS.slice(0, random.int(3, 12)).join(" ")}.</p>`,
      template,
      menuindex,
      createdon,
      editedon: createdon + random.int(0, 5) * 86400,
      deleted: random.chance(0.03) ? 1 : 0,
      hidemenu: random.chance(0.1) ? 1 : 0,
    });
  }
  for (const d of docs) if (childCount.has(d.id)) d.isfolder = 1;
  return docs;
}

function closure(docs: readonly Insertable<EvoDatabase["site_content"]>[]): SiteContentClosure[] {
  const parentOf = new Map(docs.map((d) => [d.id!, d.parent ?? 0]));
  return docs.flatMap((d) => {
    const rows: SiteContentClosure[] = [{ ancestor: d.id!, descendant: d.id!, depth: 0 }];
    for (let at = parentOf.get(d.id!)!, depth = 1; at !== 0; at = parentOf.get(at)!, depth++) {
      rows.push({ ancestor: at, descendant: d.id!, depth });
    }
    return rows;
  });
}

function tvValues(
  random: SeededRandom,
  docs: readonly Insertable<EvoDatabase["site_content"]>[],
): SiteTmplvarContentvalue[] {
  const values: Omit<SiteTmplvarContentvalue, "id">[] = [];
  for (const d of docs) {
    if (d.template === DEMO_TEMPLATES.product) {
      values.push({
        tmplvarid: DEMO_TVS.price,
        contentid: d.id!,
        value: String(random.int(1, 2000) / (random.chance(0.5) ? 1 : 4)),
      });
      values.push({
        tmplvarid: DEMO_TVS.stock,
        contentid: d.id!,
        value: random.chance(0.05) ? "n/a" : String(random.int(0, 500)),
      });
      if (random.chance(0.6))
        values.push({
          tmplvarid: DEMO_TVS.rating,
          contentid: d.id!,
          value: String(random.int(1, 5)),
        });
      if (random.chance(0.7))
        values.push({ tmplvarid: DEMO_TVS.color, contentid: d.id!, value: random.pick(COLORS) });
    }
    if (d.template === DEMO_TEMPLATES.news) {
      const day = new Date((EPOCH + random.int(0, 700) * 86400) * 1000).toISOString().slice(0, 10);
      values.push({ tmplvarid: DEMO_TVS.release_date, contentid: d.id!, value: day });
    }
  }
  return values.map((v, i) => ({ id: i + 1, ...v }));
}

async function insertElements(tx: Kysely<EvoDatabase>): Promise<void> {
  const t = EPOCH;
  await tx
    .insertInto("categories")
    .values([
      { id: 1, category: "Catalog", rank: 0 },
      { id: 2, category: "Layout", rank: 1 },
      { id: 3, category: "System", rank: 2 },
    ])
    .execute();
  await tx
    .insertInto("site_templates")
    .values(
      Object.entries(DEMO_TEMPLATES).map(([name, id]) => ({
        id,
        templatename: name,
        description: `The ${name} template`,
        category: 2,
        content: `<html>[*content*]</html>`,
        locked: 0,
        createdon: t,
        editedon: t,
      })),
    )
    .execute();
  await tx
    .insertInto("site_tmplvars")
    .values([
      {
        id: DEMO_TVS.price,
        type: "number",
        name: "price",
        caption: "Price",
        description: "",
        category: 1,
        locked: 0,
        elements: "",
        rank: 1,
        default_text: "",
        createdon: t,
        editedon: t,
      },
      {
        id: DEMO_TVS.stock,
        type: "number",
        name: "stock",
        caption: "Stock",
        description: "",
        category: 1,
        locked: 0,
        elements: "",
        rank: 2,
        default_text: "0",
        createdon: t,
        editedon: t,
      },
      {
        id: DEMO_TVS.rating,
        type: "number",
        name: "rating",
        caption: "Rating",
        description: "",
        category: 1,
        locked: 0,
        elements: "",
        rank: 3,
        default_text: "3",
        createdon: t,
        editedon: t,
      },
      {
        id: DEMO_TVS.release_date,
        type: "date",
        name: "release_date",
        caption: "Release date",
        description: "",
        category: 1,
        locked: 0,
        elements: "",
        rank: 4,
        default_text: "",
        createdon: t,
        editedon: t,
      },
      {
        id: DEMO_TVS.color,
        type: "dropdown",
        name: "color",
        caption: "Color",
        description: "",
        category: 1,
        locked: 0,
        elements: COLORS.join("||"),
        rank: 5,
        default_text: "black",
        createdon: t,
        editedon: t,
      },
      {
        id: DEMO_TVS.tags,
        type: "custom_tv:tags",
        name: "tags",
        caption: "Tags",
        description: "",
        category: 1,
        locked: 0,
        elements: "",
        rank: 6,
        default_text: "",
        createdon: t,
        editedon: t,
      },
    ])
    .execute();
  await tx
    .insertInto("site_tmplvar_templates")
    .values([
      ...[DEMO_TVS.price, DEMO_TVS.stock, DEMO_TVS.rating, DEMO_TVS.color, DEMO_TVS.tags].map(
        (tv, rank) => ({ tmplvarid: tv, templateid: DEMO_TEMPLATES.product, rank }),
      ),
      { tmplvarid: DEMO_TVS.release_date, templateid: DEMO_TEMPLATES.news, rank: 0 },
    ])
    .execute();
  await tx
    .insertInto("tags")
    .values(WORDS.slice(0, 8).map((name, i) => ({ id: i + 1, name })))
    .execute();
  for (const table of ["site_snippets", "site_plugins", "site_modules"] as const) {
    await tx
      .insertInto(table)
      .values(
        [1, 2].map((id) => ({
          id,
          name: `${table.slice(5, -1)}${id}`,
          description: "",
          category: 3,
          locked: 0,
          disabled: id === 2 ? 1 : 0,
          createdon: t,
          editedon: t,
        })),
      )
      .execute();
  }
  await tx
    .insertInto("users")
    .values(
      [1, 2, 3].map((id) => ({
        id,
        username: ["admin", "editor", "viewer"][id - 1]!,
        password: `$2y$10$demo-hash-${id}`,
        cachepwd: `cache-${id}`,
        verified_key: `verify-${id}`,
        refresh_token: `refresh-${id}`,
        access_token: `access-${id}`,
      })),
    )
    .execute();
  await tx
    .insertInto("user_attributes")
    .values(
      [1, 2, 3].map((id) => ({
        id,
        internalKey: id,
        fullname: ["Ada Admin", "Ed Editor", "Vi Viewer"][id - 1]!,
        role: id === 1 ? 1 : 2,
        email: `user${id}@example.org`,
        blocked: 0,
        logincount: id * 3,
        lastlogin: t + id * 86400,
        sessionid: `session-${id}`,
        createdon: t,
        editedon: t,
      })),
    )
    .execute();
  await tx
    .insertInto("user_roles")
    .values([
      { id: 1, name: "Administrator", description: "Everything" },
      { id: 2, name: "Editor", description: "Content" },
    ])
    .execute();
  await tx
    .insertInto("permissions_groups")
    .values([
      { id: 1, name: "Content", lang_key: "page_data_general" },
      { id: 2, name: "Administration", lang_key: "administration" },
    ])
    .execute();
  const keys = [
    "edit_document",
    "save_document",
    "delete_document",
    "edit_template",
    "manage_users",
  ];
  await tx
    .insertInto("permissions")
    .values(
      keys.map((key, i) => ({
        id: i + 1,
        key,
        lang_key: key,
        group_id: i < 3 ? 1 : 2,
        disabled: 0,
      })),
    )
    .execute();
  await tx
    .insertInto("role_permissions")
    .values([
      ...keys.map((permission, i) => ({ id: i + 1, permission, role_id: 1 })),
      ...keys
        .slice(0, 3)
        .map((permission, i) => ({ id: keys.length + i + 1, permission, role_id: 2 })),
    ])
    .execute();
}

async function insertAll<T extends keyof EvoDatabase>(
  tx: Kysely<EvoDatabase>,
  table: T,
  rows: readonly Insertable<EvoDatabase[T]>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await tx
      .insertInto(table)
      .values(rows.slice(i, i + BATCH) as Insertable<EvoDatabase[T]>[])
      .execute();
  }
}
