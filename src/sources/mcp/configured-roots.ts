import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import type { ListRootsResult } from "@modelcontextprotocol/client";
import type { CallContext } from "../../contract/router.js";

/**
 * The roots a source's config gives its backend: the broker answers the
 * backend's `roots/list` with them itself, during calls and outside any, the
 * same for every caller. A backend is shared by every client, and some cache
 * the first roots they get for the whole connection: roots relayed from one
 * caller would then be shown to, or limit, the next one's calls.
 */
export class ConfiguredRoots {
  private readonly result: ListRootsResult;

  /** `folders`: absolute paths, as the config resolved them. */
  constructor(folders: readonly string[]) {
    this.result = {
      roots: folders.map((folder) => ({
        uri: pathToFileURL(folder).href,
        name: basename(folder) || folder,
      })),
    };
  }

  /** The answer to `roots/list`: a copy, so that no caller of it can change the next one's. */
  list(): ListRootsResult {
    return structuredClone(this.result);
  }

  /**
   * `ctx` as a 2026-07-28 backend is told of it: its caller can be asked
   * for roots, since the broker answers for it (`inRounds` does).
   */
  offeredIn(ctx: CallContext): CallContext {
    return { ...ctx, clientCapabilities: { ...ctx.clientCapabilities, roots: {} } };
  }
}
