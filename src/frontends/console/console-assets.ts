import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { secureHeaders } from "hono/secure-headers";

/** The console's files: `console/` at the package's root, beside `dist/` and `src/`. */
const ROOT = fileURLToPath(new URL("../../../console/", import.meta.url));

/** The Server-Sent Events parser the console reads its live stream with, as the browser module npm ships. */
const SSE_PARSER = createRequire(import.meta.url).resolve("eventsource-parser");
const SSE_PARSER_MODULE = SSE_PARSER.replace(/index\.cjs$/, "index.js");

/**
 * The web console's page and scripts: `GET /` and `/console/*`, for anyone
 * (they hold nothing of the broker's; what the console shows comes from the
 * API with the user's token). No build step: plain modules the browser
 * loads as they are. A strict Content-Security-Policy keeps a tool's answer,
 * shown in the page, from running as script.
 */
export function consoleAssets(): Hono {
  const app = new Hono();
  const pageHeaders = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      mediaSrc: ["'self'", "data:"],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
    crossOriginEmbedderPolicy: false,
    // Whether the broker is reached over TLS is for its proxy to say, not for the console.
    strictTransportSecurity: false,
  });
  // Revalidated on every load (Last-Modified): an upgraded broker serves its own console.
  const revalidate = createMiddleware(async (c, next) => {
    await next();
    if (c.res.ok) c.header("Cache-Control", "no-cache");
  });
  app.get("/", pageHeaders, revalidate, serveStatic({ root: ROOT, path: "index.html" }));
  app.get(
    "/console/vendor/eventsource-parser.js",
    revalidate,
    serveStatic({ path: SSE_PARSER_MODULE }),
  );
  app.get(
    "/console/*",
    pageHeaders,
    revalidate,
    serveStatic({ root: ROOT, rewriteRequestPath: (path) => path.slice("/console".length) }),
  );
  return app;
}
