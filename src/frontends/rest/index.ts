/** The REST meta API: `POST /meta_tree`, `/meta_desc`, `/meta_search`, `/meta_call`, `/meta_run`. */
export { metaRoutes } from "./meta-routes.js";
