/** The web console: its page and scripts, and the API it reads. */
export { consoleApi } from "./console-api.js";
export { consoleAssets } from "./console-assets.js";
