import { readFile, stat } from "node:fs/promises";
import { BrokerError } from "../../contract/errors.js";
import { HostAllowlist } from "../../net/host-allowlist.js";
import { guardedRequest } from "../../net/guarded-request.js";

/** The largest document read: a large public API's is a few megabytes. */
const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

/** An OpenAPI 3.1 document, every `$ref` resolved (cycles stay cycles: tool-schema.ts cuts them). */
export type OpenApiDocument = Record<string, unknown>;

/**
 * The document at `spec` (a file or an http(s) URL), JSON or YAML, as
 * OpenAPI 3.1: Swagger 2.0 and OpenAPI 3.0 are converted (`upgrade`), and
 * every `$ref` within the document resolved. A document that cannot be
 * read, parsed or resolved fails the source's start, saying why.
 */
export async function loadDocument(spec: string, signal?: AbortSignal): Promise<OpenApiDocument> {
  // The parser is a hundred modules: loaded by the first OpenAPI source, not by every start.
  const { dereference, normalize, upgrade } = await import("@scalar/openapi-parser");
  const text = /^https?:\/\//.test(spec) ? await fetchText(spec, signal) : await readText(spec);
  let parsed: unknown;
  try {
    parsed = normalize(text);
  } catch (err) {
    throw unusable(spec, `it is neither JSON nor YAML (${(err as Error).message.split("\n")[0]})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw unusable(spec, "it is not an object");
  const fields = parsed as Record<string, unknown>;
  if (typeof fields.openapi !== "string" && typeof fields.swagger !== "string")
    throw unusable(spec, 'it has no "openapi" (3.x) or "swagger" (2.0) version field');
  const upgraded = upgrade(fields).specification;
  if (upgraded === null) throw unusable(spec, "its version is not one the parser knows");
  const resolved = dereference(upgraded);
  const errors = resolved.errors ?? [];
  if (errors.length > 0 || resolved.schema === undefined)
    throw unusable(
      spec,
      errors
        .slice(0, 3)
        .map((e) => e.message)
        .join("; ") || "it could not be resolved",
    );
  return resolved.schema as OpenApiDocument;
}

async function readText(file: string): Promise<string> {
  try {
    if ((await stat(file)).size > MAX_DOCUMENT_BYTES)
      throw unusable(file, `it is over ${MAX_DOCUMENT_BYTES} bytes`);
    return await readFile(file, "utf8");
  } catch (err) {
    if (err instanceof BrokerError) throw err;
    throw unusable(file, `it cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  try {
    const answer = await guardedRequest(url, {
      method: "GET",
      headers: { accept: "application/json, application/yaml, text/yaml, */*" },
      // The operator named this URL; a redirect elsewhere is refused.
      policy: HostAllowlist.ofUrls([url], "the document's own host"),
      maxBytes: MAX_DOCUMENT_BYTES,
      signal: signal ?? AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (answer.status < 200 || answer.status > 299)
      throw unusable(url, `it answered HTTP ${answer.status}`);
    return answer.body.toString("utf8");
  } catch (err) {
    if (err instanceof BrokerError) throw err;
    throw unusable(url, (err as Error).message);
  }
}

function unusable(spec: string, why: string): BrokerError {
  return new BrokerError("unavailable", `the OpenAPI document ${spec} cannot be used: ${why}`, {
    spec,
  });
}
