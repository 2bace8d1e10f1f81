import { describe, expect, it } from "vitest";
import { parseRequest } from "./parse-request.js";
import { CallRequest } from "./requests.js";

const problemsOf = (body: unknown) => {
  try {
    parseRequest(CallRequest, body);
  } catch (err) {
    return (err as { details?: { problems?: string[] } }).details?.problems;
  }
  return [];
};

describe("CallRequest", () => {
  it("tells a call whose arguments sit beside path where they go", () => {
    expect(problemsOf({ path: "/demo/add", a: 2, b: 3 })).toEqual([
      '$: Unrecognized keys: "a", "b": a tool\'s arguments go inside "args", as {"path": "/demo/add", "args": {"a": …, "b": …}}',
    ]);
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expect(problemsOf({ path: "/x", ...many })?.[0]).toMatch(
      /as \{"path": "\/x", "args": \{"k0": …, (?:"k\d+": …, ){6}"k7": …, …\}\}$/,
    );
    expect(problemsOf({ path: "/demo/echo", message: "hi" })).toEqual([
      '$: Unrecognized key: "message": a tool\'s arguments go inside "args", as {"path": "/demo/echo", "args": {"message": …}}',
    ]);
  });

  it("names a typo of its own keys as one, and a key beside args as unknown", () => {
    expect(problemsOf({ path: "/demo/add", arg: { a: 2 } })).toEqual([
      '$: Unrecognized key: "arg" (did you mean "args"?)',
    ]);
    expect(problemsOf({ path: "/demo/add", args: {}, x: 1 })).toEqual(['$: Unrecognized key: "x"']);
    expect(problemsOf({ path: "/demo/add", args: { a: 2 } })).toEqual([]);
  });
});
