/**
 * The broker's HTTP API as the console calls it: the user's token (kept in
 * this tab's session storage) as a bearer on every request.
 */
const TOKEN_KEY = "mcp-broker-token";

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? "",
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An answer the broker refused: its status, error kind and message. */
export class ApiError extends Error {
  constructor(status, kind, message) {
    super(message);
    this.status = status;
    this.kind = kind;
  }
}

export function headers(extra = {}) {
  const bearer = token.get();
  return bearer ? { ...extra, authorization: `Bearer ${bearer}` } : extra;
}

/**
 * A GET (no body) or POST (a JSON body) of the API; resolves to the JSON
 * answer and the response. A status in `answers` (besides 2xx) is an answer,
 * not a refusal.
 */
export async function request(path, body, signal, answers = []) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: headers(body === undefined ? {} : { "content-type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  let json;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new ApiError(
      response.status,
      "internal",
      `the broker answered ${response.status} with no JSON`,
    );
  }
  const answered = response.ok || answers.includes(response.status);
  if (!answered && json?.error) {
    throw new ApiError(response.status, json.error.kind, json.error.message);
  }
  if (!answered) throw new ApiError(response.status, "internal", `HTTP ${response.status}`);
  return { json, response };
}

export const api = {
  me: () => request("/console/api/me").then((r) => r.json),
  /** Every child of a node, in as many parts as meta_tree gives them. */
  tree: async (path) => {
    const children = [];
    let offset = 0;
    for (;;) {
      const part = (await request("/meta_tree", { path, offset })).json;
      children.push(...part.children);
      if (part.next_offset === undefined) return { path: part.path, children };
      offset = part.next_offset;
    }
  },
  desc: (path) => request("/meta_desc", { path }).then((r) => r.json),
  search: (query) => request("/meta_search", { query, limit: 20 }).then((r) => r.json),
  call: (path, args, signal) => request("/meta_call", { path, args }, signal),
  run: (code, timeout_s, signal) =>
    request("/meta_run", { code, timeout_s, report_calls: true }, signal).then((r) => r.json),
  traffic: () => request("/console/api/traffic").then((r) => r.json),
  tasks: (status) => request(`/tasks?status=${encodeURIComponent(status)}`).then((r) => r.json),
  pins: () => request("/pins").then((r) => r.json),
  approvePin: (path) => request("/pins/approve", { path }),
  decide: (id, action, reason) =>
    request(`/tasks/${encodeURIComponent(id)}/${action}`, reason === undefined ? {} : { reason }),
  /** The public health (up or down per source): asked without the token, which would need admin. */
  health: async () => (await fetch("/healthz")).json(),
  /** Each source's state, restarts and last error (admin); 503 is an answer too: something is down. */
  healthDetails: () => request("/healthz?details", undefined, undefined, [503]).then((r) => r.json),
};
