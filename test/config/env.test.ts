import { describe, expect, it } from "vitest";
import { substituteEnv } from "../../src/config/env.js";

function run(value: unknown, env: Record<string, string>) {
  const problems: string[] = [];
  return { value: substituteEnv(value, env, problems), problems };
}

describe("${ENV} substitution", () => {
  it("replaces variables in every string, at any depth, and leaves keys alone", () => {
    const { value, problems } = run(
      {
        tree: [
          {
            path: "/${NAME}",
            source: { command: ["bin", "--token=${TOKEN}"], env: { "${K}": "${TOKEN}" } },
          },
        ],
      },
      { NAME: "repo", TOKEN: "t0k", K: "x" },
    );
    expect(problems).toEqual([]);
    expect(value).toEqual({
      tree: [
        { path: "/repo", source: { command: ["bin", "--token=t0k"], env: { "${K}": "t0k" } } },
      ],
    });
  });
  it("uses a default after :- and turns $${ into a literal ${", () => {
    expect(run("${MISSING:-fallback} $${HOME}", {}).value).toBe("fallback ${HOME}");
    expect(run("${SET:-fallback}", { SET: "" }).value).toBe("");
  });
  it("names every missing variable with the JSON path where it was used", () => {
    const { problems } = run(
      { tree: [{ source: { command: "x ${A}", env: { B: "${B_VAR}" } } }] },
      {},
    );
    expect(problems).toEqual([
      "$.tree[0].source.command: environment variable A is not set",
      "$.tree[0].source.env.B: environment variable B_VAR is not set",
    ]);
  });
  it("refuses malformed references", () => {
    expect(run({ a: "${1X}" }, {}).problems[0]).toMatch(
      /^\$\.a: malformed variable reference "\$\{1X\}"/,
    );
    expect(run({ a: "oops ${" }, {}).problems[0]).toMatch(/^\$\.a: malformed variable reference/);
    expect(run({ a: "${}" }, {}).problems[0]).toMatch(/malformed/);
  });
  it("leaves numbers, booleans and null untouched", () => {
    expect(run([1, true, null], {}).value).toEqual([1, true, null]);
  });
});
