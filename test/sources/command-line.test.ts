import { describe, expect, it } from "vitest";
import { commandArgv } from "../../src/sources/mcp/command-line.js";

describe("commandArgv", () => {
  it("splits a string into words as a shell would, quotes and escapes included", () => {
    expect(commandArgv(`npx -y "@scope/server x" 'a b' c\\ d`)).toEqual([
      "npx",
      "-y",
      "@scope/server x",
      "a b",
      "c d",
    ]);
  });
  it("passes an array through untouched", () => {
    expect(commandArgv(["a b", "|", "$X"])).toEqual(["a b", "|", "$X"]);
  });
  it("keeps $VAR literal: nothing would expand it", () => {
    expect(commandArgv("srv $HOME")).toEqual(["srv", "$HOME"]);
  });
  it.each([
    ["srv | tee log", '"|"'],
    ["srv > out.txt", '">"'],
    ["srv && rm -rf /", '"&&"'],
    ["srv; reboot", '";"'],
    ["srv *.json", '"*.json"'],
  ])("refuses %s, naming the operator", (command, op) => {
    expect(() => commandArgv(command)).toThrow(
      new RegExp(`shell operator ${op.replace(/[|*.]/g, "\\$&")}.*without a shell`),
    );
  });
  it("refuses an empty command", () => {
    expect(() => commandArgv("   ")).toThrow(/empty/);
  });
});
