/**
 * The Evolution CMS 3 tables the eMCP toolset reads, named without their
 * prefix (TablePrefixPlugin adds it). Columns are those the toolset or its
 * demo database use; timestamps are the integers Evolution stores.
 */
export interface SiteContent {
  id: number;
  type: string;
  contentType: string;
  pagetitle: string;
  longtitle: string;
  description: string;
  alias: string;
  published: number;
  pub_date: number;
  unpub_date: number;
  parent: number;
  isfolder: number;
  introtext: string;
  content: string;
  template: number;
  menuindex: number;
  createdon: number;
  editedon: number;
  deleted: number;
  hidemenu: number;
}

export interface SiteContentClosure {
  ancestor: number;
  descendant: number;
  depth: number;
}

export interface SiteTemplate {
  id: number;
  templatename: string;
  description: string;
  category: number;
  content: string;
  locked: number;
  createdon: number;
  editedon: number;
}

export interface SiteTmplvar {
  id: number;
  type: string;
  name: string;
  caption: string;
  description: string;
  category: number;
  locked: number;
  elements: string;
  rank: number;
  default_text: string;
  createdon: number;
  editedon: number;
}

export interface SiteTmplvarTemplate {
  tmplvarid: number;
  templateid: number;
  rank: number;
}

export interface SiteTmplvarContentvalue {
  id: number;
  tmplvarid: number;
  contentid: number;
  value: string;
}

export interface Category {
  id: number;
  category: string;
  rank: number;
}

/** Snippets, plugins and modules share the columns the toolset reads. */
export interface SiteElement {
  id: number;
  name: string;
  description: string;
  category: number;
  locked: number;
  disabled: number;
  createdon: number;
  editedon: number;
}

export interface User {
  id: number;
  username: string;
  password: string;
  cachepwd: string;
  verified_key: string;
  refresh_token: string;
  access_token: string;
}

export interface UserAttribute {
  id: number;
  internalKey: number;
  fullname: string;
  role: number;
  email: string;
  blocked: number;
  logincount: number;
  lastlogin: number;
  sessionid: string;
  createdon: number;
  editedon: number;
}

export interface UserRole {
  id: number;
  name: string;
  description: string;
}

export interface Permission {
  id: number;
  key: string;
  lang_key: string;
  group_id: number;
  disabled: number;
}

export interface PermissionsGroup {
  id: number;
  name: string;
  lang_key: string;
}

export interface RolePermission {
  id: number;
  permission: string;
  role_id: number;
}

export interface Tag {
  id: number;
  name: string;
}

export interface SiteContentTag {
  doc_id: number;
  tag_id: number;
  tv_id: number;
}

export interface EvoDatabase {
  site_content: SiteContent;
  site_content_closure: SiteContentClosure;
  site_templates: SiteTemplate;
  site_tmplvars: SiteTmplvar;
  site_tmplvar_templates: SiteTmplvarTemplate;
  site_tmplvar_contentvalues: SiteTmplvarContentvalue;
  categories: Category;
  site_snippets: SiteElement;
  site_plugins: SiteElement;
  site_modules: SiteElement;
  users: User;
  user_attributes: UserAttribute;
  user_roles: UserRole;
  permissions: Permission;
  permissions_groups: PermissionsGroup;
  role_permissions: RolePermission;
  tags: Tag;
  site_content_tags: SiteContentTag;
}

export const EVO_TABLES = [
  "site_content",
  "site_content_closure",
  "site_templates",
  "site_tmplvars",
  "site_tmplvar_templates",
  "site_tmplvar_contentvalues",
  "categories",
  "site_snippets",
  "site_plugins",
  "site_modules",
  "users",
  "user_attributes",
  "user_roles",
  "permissions",
  "permissions_groups",
  "role_permissions",
  "tags",
  "site_content_tags",
] as const satisfies readonly (keyof EvoDatabase)[];
