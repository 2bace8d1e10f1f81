import type { Client } from "@modelcontextprotocol/client";

export interface ToolListBounds {
  /** Tools kept of a backend's list; the rest are left out. */
  readonly maxTools: number;
  /** Pages of `tools/list` asked for; a next cursor past them is not followed. */
  readonly maxPages: number;
}

type AnyRequest = (
  request: { method: string; params?: Record<string, unknown> },
  ...rest: unknown[]
) => Promise<unknown>;

/**
 * Bounds every walk of a backend's `tools/list` pages that the SDK client
 * makes (it follows next cursors for as long as a backend gives them): once
 * a walk has `maxPages` pages or `maxTools` tools, the page in hand is cut
 * and its next cursor dropped, so the SDK's walk ends there, with what it has
 * and its own checks of every page intact. `cut` hears why, once per walk.
 * A backend that always gives a next cursor grew the broker to 3.5 GB.
 */
export function boundToolLists(
  client: Client,
  bounds: ToolListBounds,
  cut: (why: "tools" | "pages") => void,
): void {
  const request = client.request.bind(client) as AnyRequest;
  let walk = { pages: 0, tools: 0 };
  const bounded: AnyRequest = (req, ...rest) => {
    if (req.method === "tools/list") return boundPage(req, () => request(req, ...rest));
    // Every other request (a call) goes as it came, without an async wrapper of its own per
    // call; the SDK's checks that throw at once still reach the caller as a rejection.
    try {
      return request(req, ...rest);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  const boundPage = async (req: Parameters<AnyRequest>[0], answer: () => Promise<unknown>) => {
    const result = await answer();
    if (req.params?.cursor === undefined) walk = { pages: 0, tools: 0 };
    walk.pages++;
    const page = result as { tools?: unknown[]; nextCursor?: string };
    const room = bounds.maxTools - walk.tools;
    if (page.tools !== undefined && page.tools.length > room) {
      page.tools.length = Math.max(0, room);
      delete page.nextCursor;
      cut("tools");
    } else if (page.nextCursor !== undefined && walk.pages >= bounds.maxPages) {
      delete page.nextCursor;
      cut("pages");
    }
    walk.tools += page.tools?.length ?? 0;
    return result;
  };
  client.request = bounded as Client["request"];
}
