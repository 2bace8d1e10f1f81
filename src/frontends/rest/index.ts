/** The REST meta API: `POST /meta_tree`, `/meta_desc`, `/meta_search`, `/meta_call`, `/meta_run`. */
export { metaRoutes } from "./meta-routes.js";
/** The tasks of REST: `/tasks`, `/tasks/<id>`, its approval and denial. */
export { taskRoutes } from "./task-routes.js";
/** Pinned tool definitions: `GET /pins`, `POST /pins/approve`. */
export { pinRoutes } from "./pin-routes.js";
