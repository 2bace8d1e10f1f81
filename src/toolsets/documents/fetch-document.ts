import { realpath, readFile, stat } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { BrokerError } from "../../contract/errors.js";
import type { AddressPolicy } from "../../net/address-policy.js";
import { AddressRefused, guardedRequest, RequestFailed } from "../../net/guarded-request.js";

export interface FetchSettings {
  /** Folders a file:// URL may name (resolved, symlinks followed). */
  readonly roots: readonly string[];
  readonly policy: AddressPolicy;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

export interface FetchedDocument {
  readonly bytes: Buffer;
  /** The Content-Type the server gave, if any. */
  readonly contentType?: string | undefined;
}

/**
 * The bytes behind a `document_url`: an http(s) URL through the address
 * policy (checked after DNS resolution and on every redirect), or a file://
 * URL inside a configured root; bounded in size and time.
 */
export async function fetchDocument(
  documentUrl: string,
  settings: FetchSettings,
  signal: AbortSignal,
): Promise<FetchedDocument> {
  if (!URL.canParse(documentUrl)) {
    throw invalid(
      `document_url "${documentUrl}" is not a URL; give an https://, http:// or file:// URL`,
    );
  }
  const url = new URL(documentUrl);
  if (url.protocol === "file:") return readRootedFile(url, settings);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(`document_url must be https://, http:// or file://, not ${url.protocol}//`);
  }
  try {
    const answer = await guardedRequest(url.href, {
      method: "GET",
      headers: { accept: "*/*" },
      policy: settings.policy,
      maxBytes: settings.maxBytes,
      signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]),
    });
    if (answer.status !== 200) {
      throw invalid(
        `${url.origin}${url.pathname} answered HTTP ${answer.status}, not the document`,
      );
    }
    return { bytes: answer.body, contentType: answer.headers["content-type"] };
  } catch (err) {
    if (err instanceof BrokerError) throw err;
    if (err instanceof AddressRefused) {
      throw invalid(`document_url is not fetched: ${err.message}`);
    }
    if (err instanceof RequestFailed) {
      throw new BrokerError("unavailable", `the document could not be fetched: ${err.message}`);
    }
    if (signal.aborted) throw signal.reason;
    throw new BrokerError(
      "unavailable",
      `the document could not be fetched within ${settings.timeoutMs / 1000} s (toolsets.documents.timeout_s)`,
    );
  }
}

async function readRootedFile(url: URL, settings: FetchSettings): Promise<FetchedDocument> {
  if (settings.roots.length === 0) {
    throw invalid("file:// URLs are not read: no folder is configured in toolsets.documents.roots");
  }
  const outside = invalid(`${url.href} is outside the folders of toolsets.documents.roots`);
  const roots = (
    await Promise.all(
      settings.roots.map(async (r) => [resolve(r), await realpath(r).catch(() => undefined)]),
    )
  )
    .flat()
    .filter((root) => root !== undefined);
  const within = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root + sep));
  // Outside the roots as written, the answer is the same whether the file exists or not:
  // a caller learns nothing of the host's files.
  if (!within(resolve(fileURLToPath(url)))) throw outside;
  let path: string;
  try {
    path = await realpath(fileURLToPath(url));
  } catch {
    throw invalid(`${url.href} does not exist`);
  }
  if (!within(path)) throw outside;
  const info = await stat(path);
  if (!info.isFile()) throw invalid(`${url.href} is not a file`);
  if (info.size > settings.maxBytes) {
    throw invalid(`${url.href} has ${info.size} bytes; at most ${settings.maxBytes} are read`);
  }
  return { bytes: await readFile(path) };
}

function invalid(message: string): BrokerError {
  return new BrokerError("invalid_params", message);
}
