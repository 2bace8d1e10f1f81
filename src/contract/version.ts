import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The version of this package, from its package.json. */
export const packageVersion: string = (require("../../package.json") as { version: string })
  .version;
