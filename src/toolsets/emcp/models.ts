import type { EvoDatabase } from "./schema.js";

/**
 * The models `evo.model.*` may read, each with its table and its readable
 * fields only: no password, token or session columns, no stored code.
 */
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

export const MODELS = {
  SiteTemplate: {
    table: "site_templates",
    fields: ["id", "templatename", "description", "category", "locked", "createdon", "editedon"],
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
  },
  SiteTmplvarContentvalue: {
    table: "site_tmplvar_contentvalues",
    fields: ["id", "tmplvarid", "contentid", "value"],
  },
  SiteSnippet: {
    table: "site_snippets",
    fields: ELEMENT_FIELDS,
  },
  SitePlugin: {
    table: "site_plugins",
    fields: ELEMENT_FIELDS,
  },
  SiteModule: {
    table: "site_modules",
    fields: ELEMENT_FIELDS,
  },
  Category: { table: "categories", fields: ["id", "category", "rank"] },
  User: { table: "users", fields: ["id", "username"] },
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
  },
  UserRole: { table: "user_roles", fields: ["id", "name", "description"] },
  Permissions: { table: "permissions", fields: ["id", "key", "lang_key", "group_id", "disabled"] },
  PermissionsGroups: { table: "permissions_groups", fields: ["id", "name", "lang_key"] },
  RolePermissions: { table: "role_permissions", fields: ["id", "permission", "role_id"] },
} as const satisfies Record<string, { table: keyof EvoDatabase; fields: readonly string[] }>;

export type ModelName = keyof typeof MODELS;
export const MODEL_NAMES = Object.keys(MODELS) as ModelName[];
