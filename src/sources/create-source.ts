import type { Logger } from "../core/log.js";
import type { SupervisedRouter } from "../core/router.js";
import type { Mount } from "../tree/skeleton.js";
import { StdioMcpSource } from "./mcp/stdio-source.js";

/** The Router for a mounted source, by its `backend`. */
export function createSource(mount: Mount, log: Logger): SupervisedRouter {
  switch (mount.source.backend) {
    case "stdio":
      return new StdioMcpSource(mount.id, mount.source, log);
  }
}
