import type { Logger } from "../contract/log.js";
import type { SupervisedRouter } from "../contract/router.js";
import type { Mount } from "../tree/skeleton.js";
import { EmcpSource } from "../toolsets/emcp/emcp-source.js";
import { CommandSource } from "./command/command-source.js";
import { httpBackend } from "./mcp/http-backend.js";
import { McpSource } from "./mcp/mcp-source.js";
import { stdioBackend } from "./mcp/stdio-backend.js";
import { WasmSource } from "./wasm/wasm-source.js";

/** The Router for a mounted source, by its `backend`. */
export function createSource(mount: Mount, log: Logger): SupervisedRouter {
  switch (mount.source.backend) {
    case "stdio":
      return new McpSource(mount.id, stdioBackend(mount.id, mount.source, log), log);
    case "http":
      return new McpSource(mount.id, httpBackend(mount.source), log);
    case "emcp":
      return new EmcpSource(mount.id, mount.source, log);
    case "command":
      return new CommandSource(mount.id, mount.source, log);
    case "wasm":
      return new WasmSource(mount.id, mount.source, log);
  }
}
