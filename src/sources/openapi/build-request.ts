import { isJsonObject } from "../../contract/json-text.js";
import type { ApiAuth } from "./config.js";
import type { Operation, Parameter } from "./operations.js";
import type { ArgumentPlace } from "./tool-schema.js";

/** An HTTP request, ready to send. */
export interface ApiRequest {
  readonly method: Operation["method"];
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

/**
 * A tool call as the operation's HTTP request: each argument serialized as
 * OpenAPI says for its place and style (path `simple`, `label`, `matrix`;
 * query `form`, `spaceDelimited`, `pipeDelimited`, `deepObject`; header
 * `simple`; cookie `form`), every value percent-encoded so that no argument
 * can change the host, the path's other segments or another parameter; the
 * body as JSON, form fields or text; the API's own credentials added last.
 */
export function buildRequest(
  operation: Operation,
  places: ReadonlyMap<string, ArgumentPlace>,
  args: Record<string, unknown>,
  base: string,
  options: { auth?: ApiAuth | undefined; headers?: Record<string, string> | undefined },
): ApiRequest {
  let path = operation.path;
  const query: [string, string][] = [];
  const headers: Record<string, string> = {
    accept: "application/json, */*;q=0.8",
    ...options.headers,
  };
  const cookies: string[] = [];
  let body: Buffer | undefined;
  for (const [name, place] of places) {
    const value = args[name];
    if (value === undefined) continue;
    if (place.in === "body") {
      body = encodeBody(operation.body!.mediaType, value);
      headers["content-type"] = operation.body!.mediaType;
      continue;
    }
    const { parameter } = place;
    switch (parameter.in) {
      case "path":
        path = path.replaceAll(`{${parameter.name}}`, pathValue(parameter, value));
        break;
      case "query":
        query.push(...queryPairs(parameter, value));
        break;
      case "header":
        headers[parameter.name.toLowerCase()] = headerValue(parameter, value);
        break;
      case "cookie":
        cookies.push(
          `${parameter.name}=${encodeURIComponent(simple(value, parameter.explode ?? true, ","))}`,
        );
        break;
    }
  }
  const auth = options.auth;
  if (auth && "api_key" in auth) {
    const key = auth.api_key;
    if (key.in === "header") headers[key.name.toLowerCase()] = key.value;
    else if (key.in === "query") query.push([key.name, key.value]);
    else cookies.push(`${key.name}=${encodeURIComponent(key.value)}`);
  } else if (auth && "bearer" in auth) {
    headers.authorization = `Bearer ${auth.bearer}`;
  } else if (auth && "basic" in auth) {
    const { username, password } = auth.basic;
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  }
  // URLs read "." and ".." (even encoded) as moves between segments: no argument may make one.
  if (path.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment)))
    throw new TypeError(`a path argument cannot be "." or "..": it would name another path`);
  if (cookies.length > 0) headers.cookie = cookies.join("; ");
  // The base's own path is kept: "https://api.example.com/v2" + "/pets" is /v2/pets.
  const url = new URL(base.replace(/\/+$/, "") + path);
  for (const [key, value] of query) url.searchParams.append(key, value);
  return { method: operation.method, url, headers, ...(body ? { body } : {}) };
}

function pathValue(parameter: Parameter, value: unknown): string {
  const explode = parameter.explode ?? false;
  const encoded = encodeDeep(value);
  switch (parameter.style ?? "simple") {
    case "label":
      return `.${simple(encoded, explode, explode ? "." : ",")}`;
    case "matrix":
      return matrix(parameter.name, encoded, explode);
    default:
      return simple(encoded, explode, ",");
  }
}

function queryPairs(parameter: Parameter, value: unknown): [string, string][] {
  const style = parameter.style ?? "form";
  const explode = parameter.explode ?? style === "form";
  const name = parameter.name;
  if (style === "deepObject" && isJsonObject(value))
    return Object.entries(value).map(([k, v]) => [`${name}[${k}]`, scalar(v)]);
  if (Array.isArray(value)) {
    if (explode && style === "form") return value.map((v) => [name, scalar(v)]);
    const separator = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",";
    return [[name, value.map(scalar).join(separator)]];
  }
  if (isJsonObject(value)) {
    if (explode) return Object.entries(value).map(([k, v]) => [k, scalar(v)]);
    return [[name, Object.entries(value).flat().map(scalar).join(",")]];
  }
  return [[name, scalar(value)]];
}

function headerValue(parameter: Parameter, value: unknown): string {
  const text = simple(value, parameter.explode ?? false, ",");
  // A header value cannot hold a line break: refused rather than sent as two headers.
  if (/[\r\n\0]/.test(text))
    throw new TypeError(`header ${parameter.name}: a value cannot contain line breaks`);
  return text;
}

/** `simple` style: arrays and objects as comma-separated lists (exploded objects as k=v). */
function simple(value: unknown, explode: boolean, separator: string): string {
  if (Array.isArray(value)) return value.map(scalar).join(separator);
  if (isJsonObject(value))
    return Object.entries(value)
      .map(([k, v]) => (explode ? `${k}=${scalar(v)}` : `${k},${scalar(v)}`))
      .join(separator);
  return scalar(value);
}

function matrix(name: string, value: unknown, explode: boolean): string {
  if (Array.isArray(value))
    return explode
      ? value.map((v) => `;${name}=${scalar(v)}`).join("")
      : `;${name}=${value.map(scalar).join(",")}`;
  if (isJsonObject(value))
    return explode
      ? Object.entries(value)
          .map(([k, v]) => `;${k}=${scalar(v)}`)
          .join("")
      : `;${name}=${simple(value, false, ",")}`;
  return `;${name}=${scalar(value)}`;
}

/** Every string in a value percent-encoded, for the path: nothing an argument holds is a separator. */
function encodeDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(encodeDeep);
  if (isJsonObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [encodeURIComponent(k), encodeDeep(v)]),
    );
  return encodeURIComponent(scalar(value));
}

function encodeBody(mediaType: string, value: unknown): Buffer {
  if (mediaType === "application/x-www-form-urlencoded" && isJsonObject(value)) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(value))
      for (const item of Array.isArray(v) ? v : [v]) form.append(k, scalar(item));
    return Buffer.from(form.toString());
  }
  if (mediaType === "text/plain") return Buffer.from(scalar(value));
  return Buffer.from(JSON.stringify(value));
}

function scalar(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
