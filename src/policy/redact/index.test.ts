import { describe, expect, it } from "vitest";
import { answering, sourceRequest, toolCall } from "../../../test/helpers/requests.js";
import { redact } from "./index.js";

const secret = { user: "ann", Password: "p", deep: [{ access_token: "t", ok: 1 }] };

describe("redact", () => {
  it("removes sensitive keys from a tool's content and structured content, any case, any depth", async () => {
    const result = await redact(["api_key"])(
      toolCall(),
      answering({
        content: [{ type: "text", text: JSON.stringify({ ...secret, api_key: "k" }) }],
        structuredContent: { ...secret, api_key: "k" },
      }),
    );
    const expected = { user: "ann", deep: [{ ok: 1 }] };
    expect(JSON.parse((result as any).content[0].text)).toEqual(expected);
    expect((result as any).structuredContent).toEqual(expected);
  });

  it("redacts resources, prompts, completion values and list entries alike", async () => {
    const text = JSON.stringify(secret);
    const read = await redact()(
      sourceRequest("resources/read", { uri: "x" }),
      answering({ contents: [{ uri: "x", text }] }),
    );
    expect(JSON.parse((read as any).contents[0].text)).toEqual({ user: "ann", deep: [{ ok: 1 }] });
    const prompt = await redact()(
      sourceRequest("prompts/get", { name: "p" }),
      answering({ messages: [{ role: "user", content: { type: "text", text } }] }),
    );
    expect((prompt as any).messages[0].content.text).not.toContain("access_token");
    const completion = await redact()(
      sourceRequest("completion/complete", {
        ref: { type: "ref/prompt", name: "p" },
        argument: { name: "a", value: "" },
      }),
      answering({ completion: { values: [text, "plain"] } }),
    );
    expect((completion as any).completion.values[1]).toBe("plain");
    expect((completion as any).completion.values[0]).not.toContain("Password");
    const list = await redact()(
      sourceRequest("resources/list", {}),
      answering({ resources: [{ uri: "x", name: "x", _meta: { sessionid: "s" } }] }),
    );
    expect((list as any).resources[0]).toEqual({ uri: "x", name: "x", _meta: {} });
  });

  it("returns what holds nothing to remove as it came, text byte for byte", async () => {
    const text = '{ "a" :  1 }';
    const result = { content: [{ type: "text", text }] };
    expect(await redact()(toolCall(), answering(result))).toBe(result);
  });

  it("refuses a result too deep to check rather than overflow or pass it on", async () => {
    const deep = JSON.parse('{"a":'.repeat(10_000) + "1" + "}".repeat(10_000));
    await expect(
      redact()(toolCall(), answering({ content: [], structuredContent: deep })),
    ).rejects.toMatchObject({ kind: "execution_failed" });
    await expect(
      redact()(
        toolCall(),
        answering({ content: [{ type: "text", text: "[".repeat(50_000) + "]".repeat(50_000) }] }),
      ),
    ).rejects.toMatchObject({ kind: "execution_failed" });
  });
});
