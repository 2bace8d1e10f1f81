import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import ipaddr from "ipaddr.js";
import { guardedLookup, type AddressPolicy } from "./address-policy.js";
import { CONNECT_FAILURE_WORDS, NOT_CONNECTED } from "./connect-failure.js";

const MAX_REDIRECTS = 3;

/**
 * The request did not get a usable answer: no connection, too many
 * redirects, too large. The message names the origin and what happened,
 * never a body.
 */
export class RequestFailed extends Error {
  override readonly name = "RequestFailed";
}

/** No connection was made: the request never reached the server, so sending it again is safe. */
export class NotReached extends RequestFailed {}

/** The address policy refused every address of the host (the SSRF guard). */
export class AddressRefused extends NotReached {}

/** The methods a request may have (a REST API's operations use all of them). */
export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" | "TRACE";

export interface GuardedRequest {
  readonly method: HttpMethod;
  readonly body?: Buffer;
  readonly headers?: Record<string, string>;
  readonly policy: AddressPolicy;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

export interface GuardedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Where the answer came from, after redirects. */
  readonly url: URL;
}

// Kept-alive connections: the same services are called again and again.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * An HTTP request whose every connection is checked against `policy` (after
 * DNS resolution, and again on each redirect), following at most three
 * redirects (anything but a GET or HEAD only 307 and 308, which keep its
 * method), reading at most
 * `maxBytes` of the answer.
 */
export async function guardedRequest(
  target: string,
  options: GuardedRequest,
): Promise<GuardedResponse> {
  let url = new URL(target);
  for (let hop = 0; ; hop++) {
    const answer = await requestOnce(url, options);
    const location = answer.headers.location;
    // A redirect keeps the method only as 307 and 308: others would turn a write into a GET.
    const safe = options.method === "GET" || options.method === "HEAD";
    const follows = safe ? [301, 302, 303, 307, 308] : [307, 308];
    if (location === undefined || !follows.includes(answer.status)) return answer;
    if (hop >= MAX_REDIRECTS) {
      throw new RequestFailed(`${url.origin} redirected more than ${MAX_REDIRECTS} times`);
    }
    url = new URL(location, url);
  }
}

/** POSTs a JSON body and returns the parsed JSON answer, whatever its status. */
export async function postJson(
  target: string,
  body: unknown,
  options: Omit<GuardedRequest, "method" | "body" | "headers">,
): Promise<unknown> {
  const answer = await guardedRequest(target, {
    ...options,
    method: "POST",
    body: Buffer.from(JSON.stringify(body)),
    headers: { "content-type": "application/json", accept: "application/json" },
  });
  try {
    return JSON.parse(answer.body.toString("utf8")) as unknown;
  } catch {
    throw new RequestFailed(
      `${answer.url.origin} answered HTTP ${answer.status} with a body that is not JSON (${answer.body.length} bytes)`,
    );
  }
}

function requestOnce(url: URL, options: GuardedRequest): Promise<GuardedResponse> {
  const where = url.origin;
  return new Promise<GuardedResponse>((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return reject(new RequestFailed(`${where} is not an http(s) URL`));
    }
    // Node connects to an address literal without a lookup, so it is checked here.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (ipaddr.isValid(host) && !options.policy.allows(host, host)) {
      return reject(new AddressRefused(`${where} is ${options.policy.refusal()}`));
    }
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: options.method,
      agent: agents[url.protocol],
      lookup: guardedLookup(options.policy),
      signal: options.signal,
      headers: {
        ...options.headers,
        ...(options.body === undefined ? {} : { "content-length": options.body.length }),
      },
    });
    request.on("error", (err: NodeJS.ErrnoException) => {
      if (options.signal.aborted) return reject(options.signal.reason);
      const code = err.code ?? "";
      const Failure =
        code === "EHOSTNOTALLOWED"
          ? AddressRefused
          : NOT_CONNECTED.has(code)
            ? NotReached
            : RequestFailed;
      const what =
        code === "EHOSTNOTALLOWED" || code === ""
          ? err.message
          : Object.hasOwn(CONNECT_FAILURE_WORDS, code)
            ? CONNECT_FAILURE_WORDS[code]
            : code;
      reject(new Failure(`could not reach ${where}: ${what}`));
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          response.destroy();
          request.destroy();
          reject(new RequestFailed(`${where} answered more than ${options.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on("error", (err) => reject(new RequestFailed(`${where}: ${err.message}`)));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          url,
        }),
      );
    });
    request.end(options.body);
  });
}
