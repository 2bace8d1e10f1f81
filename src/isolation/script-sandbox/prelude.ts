/**
 * What a script has in scope besides the language, defined inside the
 * sandbox over its three host functions, which it then removes from the
 * global object: `call`, `search`, `describe`, `tree`, `tools` and
 * `console`. Every host answer is JSON text: `{ok: true, value}` or
 * `{ok: false, error: {kind, message}}`, which becomes an `Error` with
 * `kind`. `then` is no tool name, so awaiting a node of `tools` is not
 * mistaken for awaiting a call. Its value is the function that waits for the
 * script's promise and tells the host (`end`) its result as JSON text or what
 * it threw, made of the built-ins as they were before the script ran: a script
 * that replaces `JSON.stringify` or `Promise.prototype.then` changes its own
 * calls, not how its result is read.
 */
export const PRELUDE = String.raw`
(function (host, log, end) {
  "use strict";
  const g = globalThis;
  delete g.__host;
  delete g.__log;
  delete g.__end;
  const stringify = JSON.stringify;
  const then = Promise.prototype.then;
  const apply = Reflect.apply;
  const text = (v) => {
    if (typeof v === "string") return v;
    try {
      const s = JSON.stringify(v);
      return s === undefined ? String(v) : s;
    } catch (e) {
      return String(v);
    }
  };
  const ask = async (op, args) => {
    const answer = JSON.parse(await host(op, JSON.stringify(args)));
    if (answer.ok) return answer.value;
    const err = new Error(answer.error.message);
    err.kind = answer.error.kind;
    throw err;
  };
  g.call = (path, args, options) =>
    ask("call", { path, args: args === undefined ? {} : args, idempotency_key: options && options.idempotency_key });
  g.search = (query, options) =>
    ask("search", { query, limit: options && options.limit, path: options && options.path });
  g.describe = (path, options) => ask("describe", { path, format: options && options.format });
  g.tree = (path) => ask("tree", { path: path === undefined ? "/" : path });
  const node = (path) =>
    new Proxy(function () {}, {
      get(_, key) {
        if (typeof key !== "string" || key === "then") return undefined;
        return node(path === "/" ? "/" + key : path + "/" + key);
      },
      apply(_, __, args) {
        return g.call(path, args[0], args[1]);
      },
    });
  g.tools = node("/");
  const console = {};
  for (const level of ["log", "info", "warn", "error"])
    console[level] = (...args) => log(level, args.map(text).join(" "));
  g.console = console;
  // A value JSON has no text for (a function, a symbol, undefined) is null, as in an array.
  const returned = (v) => {
    let s;
    try {
      s = stringify(v);
    } catch (e) {
      end(false, e);
      return;
    }
    end(true, s === undefined ? "null" : s);
  };
  return (promise) => apply(then, promise, [returned, (e) => end(false, e)]);
})(__host, __log, __end);
`;

/** What the prelude gives a script, for messages about a name it does not have. */
export const SCRIPT_GLOBALS = ["call", "search", "describe", "tree", "tools", "console"];

/** The name scripts are evaluated under: stack frames of the script say `script.js:LINE`. */
export const SCRIPT_FILE = "script.js";

/**
 * A script as the body of an async function, called: its value is the
 * promise of what it returns. The body starts on line 1, so that a line in
 * an error is the script's own.
 */
export function wrapScript(code: string): string {
  return `(async () => {${code}\n})()`;
}
