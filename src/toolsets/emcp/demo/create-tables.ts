import type { Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";

type Db = Kysely<EvoDatabase>;

/**
 * The Evolution CMS 3 tables the toolset reads, with the columns it uses and
 * Evolution's indexes on them, in types every engine has. Existing tables are
 * dropped first, so a demo database is always made whole.
 */
export async function createTables(db: Db, prefix: string): Promise<void> {
  const tables: [
    string,
    (t: ReturnType<Db["schema"]["createTable"]>) => ReturnType<Db["schema"]["createTable"]>,
  ][] = [
    [
      "site_content",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("type", "varchar(20)", (c) => c.notNull().defaultTo("document"))
          .addColumn("contentType", "varchar(50)", (c) => c.notNull().defaultTo("text/html"))
          .addColumn("pagetitle", "varchar(255)", (c) => c.notNull().defaultTo(""))
          .addColumn("longtitle", "varchar(255)", (c) => c.notNull().defaultTo(""))
          .addColumn("description", "varchar(255)", (c) => c.notNull().defaultTo(""))
          .addColumn("alias", "varchar(245)", (c) => c.notNull().defaultTo(""))
          .addColumn("published", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("pub_date", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("unpub_date", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("parent", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("isfolder", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("introtext", "text", (c) => c.notNull())
          .addColumn("content", "text", (c) => c.notNull())
          .addColumn("template", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("menuindex", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("createdon", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("editedon", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("deleted", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("hidemenu", "integer", (c) => c.notNull().defaultTo(0)),
    ],
    [
      "site_content_closure",
      (t) =>
        t
          .addColumn("ancestor", "integer", (c) => c.notNull())
          .addColumn("descendant", "integer", (c) => c.notNull())
          .addColumn("depth", "integer", (c) => c.notNull())
          .addPrimaryKeyConstraint(`${prefix}closure_pk`, ["ancestor", "descendant"]),
    ],
    [
      "site_templates",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("templatename", "varchar(100)", (c) => c.notNull())
          .addColumn("description", "varchar(255)", (c) => c.notNull().defaultTo(""))
          .addColumn("category", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("content", "text", (c) => c.notNull())
          .addColumn("locked", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("createdon", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("editedon", "integer", (c) => c.notNull().defaultTo(0)),
    ],
    [
      "site_tmplvars",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("type", "varchar(50)", (c) => c.notNull().defaultTo("text"))
          .addColumn("name", "varchar(50)", (c) => c.notNull())
          .addColumn("caption", "varchar(80)", (c) => c.notNull().defaultTo(""))
          .addColumn("description", "varchar(255)", (c) => c.notNull().defaultTo(""))
          .addColumn("category", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("locked", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("elements", "text", (c) => c.notNull())
          .addColumn("rank", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("default_text", "text", (c) => c.notNull())
          .addColumn("createdon", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("editedon", "integer", (c) => c.notNull().defaultTo(0)),
    ],
    [
      "site_tmplvar_templates",
      (t) =>
        t
          .addColumn("tmplvarid", "integer", (c) => c.notNull())
          .addColumn("templateid", "integer", (c) => c.notNull())
          .addColumn("rank", "integer", (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint(`${prefix}tvt_pk`, ["tmplvarid", "templateid"]),
    ],
    [
      "site_tmplvar_contentvalues",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("tmplvarid", "integer", (c) => c.notNull())
          .addColumn("contentid", "integer", (c) => c.notNull())
          .addColumn("value", "text", (c) => c.notNull()),
    ],
    [
      "categories",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("category", "varchar(45)", (c) => c.notNull())
          .addColumn("rank", "integer", (c) => c.notNull().defaultTo(0)),
    ],
    ...(["site_snippets", "site_plugins", "site_modules"] as const).map(
      (
        name,
      ): [
        string,
        (t: ReturnType<Db["schema"]["createTable"]>) => ReturnType<Db["schema"]["createTable"]>,
      ] => [
        name,
        (t) =>
          t
            .addColumn("id", "integer", (c) => c.primaryKey())
            .addColumn("name", "varchar(50)", (c) => c.notNull())
            .addColumn("description", "varchar(255)", (c) => c.notNull().defaultTo(""))
            .addColumn("category", "integer", (c) => c.notNull().defaultTo(0))
            .addColumn("locked", "integer", (c) => c.notNull().defaultTo(0))
            .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
            .addColumn("createdon", "integer", (c) => c.notNull().defaultTo(0))
            .addColumn("editedon", "integer", (c) => c.notNull().defaultTo(0)),
      ],
    ),
    [
      "users",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("username", "varchar(100)", (c) => c.notNull())
          .addColumn("password", "varchar(100)", (c) => c.notNull())
          .addColumn("cachepwd", "varchar(100)", (c) => c.notNull())
          .addColumn("verified_key", "varchar(255)", (c) => c.notNull())
          .addColumn("refresh_token", "varchar(255)", (c) => c.notNull())
          .addColumn("access_token", "varchar(255)", (c) => c.notNull()),
    ],
    [
      "user_attributes",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("internalKey", "integer", (c) => c.notNull())
          .addColumn("fullname", "varchar(100)", (c) => c.notNull().defaultTo(""))
          .addColumn("role", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("email", "varchar(100)", (c) => c.notNull().defaultTo(""))
          .addColumn("blocked", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("logincount", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("lastlogin", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("sessionid", "varchar(100)", (c) => c.notNull().defaultTo(""))
          .addColumn("createdon", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("editedon", "integer", (c) => c.notNull().defaultTo(0)),
    ],
    [
      "user_roles",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("name", "varchar(50)", (c) => c.notNull())
          .addColumn("description", "varchar(255)", (c) => c.notNull().defaultTo("")),
    ],
    [
      "permissions",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("key", "varchar(255)", (c) => c.notNull())
          .addColumn("lang_key", "varchar(255)", (c) => c.notNull().defaultTo(""))
          .addColumn("group_id", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0)),
    ],
    [
      "permissions_groups",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("name", "varchar(255)", (c) => c.notNull())
          .addColumn("lang_key", "varchar(255)", (c) => c.notNull().defaultTo("")),
    ],
    [
      "role_permissions",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("permission", "varchar(255)", (c) => c.notNull())
          .addColumn("role_id", "integer", (c) => c.notNull()),
    ],
    [
      "tags",
      (t) =>
        t
          .addColumn("id", "integer", (c) => c.primaryKey())
          .addColumn("name", "varchar(255)", (c) => c.notNull()),
    ],
    [
      "site_content_tags",
      (t) =>
        t
          .addColumn("doc_id", "integer", (c) => c.notNull())
          .addColumn("tag_id", "integer", (c) => c.notNull())
          .addColumn("tv_id", "integer", (c) => c.notNull()),
    ],
  ];
  for (const [name] of [...tables].reverse()) await db.schema.dropTable(name).ifExists().execute();
  for (const [name, columns] of tables) await columns(db.schema.createTable(name)).execute();
  const indexes: [string, string, string[]][] = [
    ["site_content", "parent", ["parent"]],
    ["site_content", "published_deleted", ["published", "deleted"]],
    ["site_content", "menuindex", ["parent", "menuindex"]],
    ["site_content_closure", "descendant", ["descendant", "depth"]],
    ["site_tmplvar_contentvalues", "tv_content", ["tmplvarid", "contentid"]],
    ["site_tmplvar_contentvalues", "content", ["contentid"]],
    ["site_content_tags", "doc", ["doc_id"]],
  ];
  for (const [table, name, columns] of indexes) {
    const index = db.schema.createIndex(`${prefix}${table}_${name}`).on(table).columns(columns);
    // As in Evolution: one value per TV and document, which the search's joins rely on.
    await (name === "tv_content" ? index.unique() : index).execute();
  }
}
