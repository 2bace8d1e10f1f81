import type { EvoDatabase } from "./schema.js";

/** Snippets, plugins and modules: their code stays out. */
const ELEMENT_FIELDS = [
  "id",
  "name",
  "description",
  "category",
  "locked",
  "disabled",
  "createdon",
  "editedon",
] as const;
const ELEMENT_INTEGERS = ["id", "category", "locked", "disabled", "createdon", "editedon"];

/**
 * The models `evo.model.*` may read, each with its table and its readable
 * fields only (no password, token or session columns, no stored code), and
 * which of them are integer columns: a filter on those compares integers an
 * INT holds and never text, so that every engine answers alike.
 */
export const MODELS = {
  SiteTemplate: {
    table: "site_templates",
    fields: ["id", "templatename", "description", "category", "locked", "createdon", "editedon"],
    integers: ["id", "category", "locked", "createdon", "editedon"],
  },
  SiteTmplvar: {
    table: "site_tmplvars",
    fields: [
      "id",
      "type",
      "name",
      "caption",
      "description",
      "category",
      "locked",
      "elements",
      "rank",
      "default_text",
      "createdon",
      "editedon",
    ],
    integers: ["id", "category", "locked", "rank", "createdon", "editedon"],
  },
  SiteTmplvarContentvalue: {
    table: "site_tmplvar_contentvalues",
    fields: ["id", "tmplvarid", "contentid", "value"],
    integers: ["id", "tmplvarid", "contentid"],
  },
  SiteSnippet: {
    table: "site_snippets",
    fields: ELEMENT_FIELDS,
    integers: ELEMENT_INTEGERS,
  },
  SitePlugin: {
    table: "site_plugins",
    fields: ELEMENT_FIELDS,
    integers: ELEMENT_INTEGERS,
  },
  SiteModule: {
    table: "site_modules",
    fields: ELEMENT_FIELDS,
    integers: ELEMENT_INTEGERS,
  },
  Category: { table: "categories", fields: ["id", "category", "rank"], integers: ["id", "rank"] },
  User: { table: "users", fields: ["id", "username"], integers: ["id"] },
  UserAttribute: {
    table: "user_attributes",
    fields: [
      "id",
      "internalKey",
      "fullname",
      "role",
      "email",
      "blocked",
      "logincount",
      "lastlogin",
      "createdon",
      "editedon",
    ],
    integers: [
      "id",
      "internalKey",
      "role",
      "blocked",
      "logincount",
      "lastlogin",
      "createdon",
      "editedon",
    ],
  },
  UserRole: { table: "user_roles", fields: ["id", "name", "description"], integers: ["id"] },
  Permissions: {
    table: "permissions",
    fields: ["id", "key", "lang_key", "group_id", "disabled"],
    integers: ["id", "group_id", "disabled"],
  },
  PermissionsGroups: {
    table: "permissions_groups",
    fields: ["id", "name", "lang_key"],
    integers: ["id"],
  },
  RolePermissions: {
    table: "role_permissions",
    fields: ["id", "permission", "role_id"],
    integers: ["id", "role_id"],
  },
} as const satisfies Record<
  string,
  { table: keyof EvoDatabase; fields: readonly string[]; integers: readonly string[] }
>;

export type ModelName = keyof typeof MODELS;
export const MODEL_NAMES = Object.keys(MODELS) as ModelName[];
