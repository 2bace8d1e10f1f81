import http from "node:http";
import https from "node:https";
import ipaddr from "ipaddr.js";
import type { HostAllowlist } from "./host-allowlist.js";

const MAX_REDIRECTS = 3;

/**
 * The service could not be reached, or did not answer with JSON: it counts
 * against the service's breaker. The message names the service's origin and
 * what happened, never the body it sent.
 */
export class ServiceFailure extends Error {
  override readonly name = "ServiceFailure";
}

/** No connection was made: the request never reached the service, so retrying it is safe. */
export class ServiceUnreachable extends ServiceFailure {}

const NOT_REACHED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTNOTALLOWED",
]);

export interface PostOptions {
  readonly allow: HostAllowlist;
  readonly maxResponseBytes: number;
  readonly signal: AbortSignal;
}

// Kept-alive connections: a registered service is called again and again.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * POSTs a JSON body and returns the parsed JSON answer, through the allowlist
 * (checked as each connection is made), following at most three 307/308
 * redirects, reading at most `maxResponseBytes`.
 */
export async function postJson(
  target: string,
  body: unknown,
  options: PostOptions,
): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  let url = new URL(target);
  for (let hop = 0; ; hop++) {
    const answer = await postOnce(url, payload, options);
    if (answer.redirect === undefined) return answer.json;
    if (hop >= MAX_REDIRECTS) {
      throw new ServiceFailure(`${url.origin} redirected more than ${MAX_REDIRECTS} times`);
    }
    url = new URL(answer.redirect, url);
  }
}

type Answer = { redirect: string; json?: never } | { redirect?: undefined; json: unknown };

function postOnce(url: URL, payload: Buffer, options: PostOptions): Promise<Answer> {
  const where = url.origin;
  return new Promise<Answer>((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return reject(new ServiceFailure(`${where} is not an http(s) URL`));
    }
    // Node connects to an address literal without a lookup, so it is checked here.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (ipaddr.isValid(host) && !options.allow.allows(host, host)) {
      return reject(new ServiceFailure(`${where} is outside registry.allowed_hosts`));
    }
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      agent: agents[url.protocol],
      lookup: options.allow.lookup,
      signal: options.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "content-length": payload.length,
      },
    });
    request.on("error", (err: NodeJS.ErrnoException) => {
      if (options.signal.aborted) return reject(options.signal.reason);
      const Failure = NOT_REACHED.has(err.code ?? "") ? ServiceUnreachable : ServiceFailure;
      reject(new Failure(`could not reach ${where}: ${err.code ?? err.message}`));
    });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if ((status === 307 || status === 308) && response.headers.location) {
        response.resume();
        return resolve({ redirect: response.headers.location });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) {
          response.destroy();
          request.destroy();
          reject(
            new ServiceFailure(
              `${where} answered more than registry.max_response_bytes (${options.maxResponseBytes} bytes)`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on("error", (err) => reject(new ServiceFailure(`${where}: ${err.message}`)));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          resolve({ json: JSON.parse(text) as unknown });
        } catch {
          reject(
            new ServiceFailure(
              `${where} answered HTTP ${status} with a body that is not JSON (${size} bytes)`,
            ),
          );
        }
      });
    });
    request.end(payload);
  });
}
