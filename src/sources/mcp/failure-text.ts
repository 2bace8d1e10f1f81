import { SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { CONNECT_FAILURE_WORDS } from "../../net/connect-failure.js";

/** Node's codes for a program that cannot run or an address that cannot be reached. */
const SYSTEM_MEANING: Readonly<Record<string, string>> = {
  ENOENT: "the program was not found: check the command and PATH",
  EACCES: "the program cannot be run: permission denied",
  ENOEXEC: "the file is not a program this system can run",
  ...CONNECT_FAILURE_WORDS,
};

/** What the statuses a misconfigured backend answers most often mean to whoever configured it. */
const HTTP_MEANING: Readonly<Record<number, string>> = {
  401: "it asks for credentials (HTTP 401): give the source `headers` or `auth`",
  403: "it refused access (HTTP 403): the source's credentials lack a right",
  404: "nothing answers MCP at that URL (HTTP 404): check the endpoint's path, often /mcp",
  405: "that URL does not take MCP's POST (HTTP 405): check the endpoint's path",
};

/** TLS failures, which Node names by the certificate check that failed. */
const TLS_CODE = /^(CERT_|ERR_TLS_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

/** Longest message of another error passed on: the SDK's sentences fit, a quoted page does not. */
const MAX_SAID = 200;

/** The first of `err` and its causes that `pick` finds something in. */
function inCauses<T>(err: unknown, pick: (e: object) => T | undefined): T | undefined {
  let at: unknown = err;
  for (let depth = 0; depth < 5 && typeof at === "object" && at !== null; depth++) {
    const found = pick(at);
    if (found !== undefined) return found;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The system's code for why `err` (or one of its causes) happened, where it is one named here. */
export function systemCodeOf(err: unknown): string | undefined {
  return inCauses(err, systemCode);
}

function systemCode(e: object): string | undefined {
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && (Object.hasOwn(SYSTEM_MEANING, code) || TLS_CODE.test(code))
    ? code
    : undefined;
}

/** The SDK's check of a message that is not JSON-RPC, by name: the SDK's zod need not be ours. */
function notJsonRpc(e: object): true | undefined {
  return (e as { name?: unknown }).name === "ZodError" ? true : undefined;
}

function httpStatus(e: object): number | undefined {
  return e instanceof SdkHttpError && typeof e.status === "number" ? e.status : undefined;
}

/**
 * What a failure of a request to an MCP backend (the SDK's, its transport's
 * or the system's) means, in words fit for a caller and for whoever
 * configured the source. Never the backend's own text: an error page, a
 * stack trace or what a program printed may hold secrets, and belongs in the
 * log.
 */
export function failureText(err: unknown): string {
  const code = systemCodeOf(err);
  if (code !== undefined)
    return SYSTEM_MEANING[code] ?? `its TLS certificate was not accepted (${code})`;
  const status = inCauses(err, httpStatus);
  if (status !== undefined) return HTTP_MEANING[status] ?? `it answered HTTP ${status}`;
  if (inCauses(err, notJsonRpc))
    return "it answered with JSON that is not an MCP message (JSON-RPC 2.0): check the endpoint's path";
  if (err instanceof SdkError) {
    switch (err.code) {
      case SdkErrorCode.RequestTimeout:
        return "it did not answer in time";
      case SdkErrorCode.ConnectionClosed:
        return "it closed the connection";
      case SdkErrorCode.ClientHttpUnexpectedContent:
        return "it answered with something other than MCP (not JSON nor an event stream)";
      case SdkErrorCode.EraNegotiationFailed:
        // The SDK's words, with what the backend answered cut off.
        return oneLine(err.message.replace(/ \(.*$/s, ""));
    }
  }
  // The SDK's own words (an invalid result, an unsupported revision): a line of them.
  return oneLine(err instanceof Error ? err.message : String(err));
}

/** The first line of a message, at most MAX_SAID characters of it. */
function oneLine(message: string): string {
  const said = message.split("\n", 1)[0] ?? "";
  return said.length <= MAX_SAID ? said : `${said.slice(0, MAX_SAID)}…`;
}
