import { describe, expect, it } from "vitest";
import type { Principal } from "../../contract/router.js";
import {
  answering,
  context,
  sourceRequest,
  textResult,
  toolCall,
} from "../../../test/helpers/requests.js";
import { authorize } from "./index.js";

const as = (...scopes: string[]) => ({
  ctx: context({ principal: { id: "t", scopes } satisfies Principal }),
});

describe("authorize", () => {
  it("lets a tool call through only with a call scope matching its leaf", async () => {
    const next = answering(textResult("ok"));
    await authorize()(toolCall({}, as("call:/src/*")), next);
    await expect(authorize()(toolCall({}, as("call:/other/**")), next)).rejects.toMatchObject({
      kind: "forbidden",
      message: 'token "t" may not call /src/tool: no call scope matches it',
    });
    await expect(authorize()(toolCall({}, as("describe:/**")), next)).rejects.toMatchObject({
      kind: "forbidden",
    });
    expect(next.reached).toHaveLength(1);
  });

  it("reading a resource needs a call scope matching the source's node", async () => {
    const read = (...scopes: string[]) =>
      authorize()(
        sourceRequest("resources/read", { uri: "x" }, as(...scopes)),
        answering({ contents: [] }),
      );
    await read("call:/src/**");
    await expect(read("call:/src/tool")).rejects.toMatchObject({
      message: 'token "t" may not read the resources of /src: no call scope matches it',
    });
    await expect(read("describe:/**")).rejects.toMatchObject({ kind: "forbidden" });
  });

  it("listing a source's prompts needs a describe scope that reaches its node", async () => {
    const list = (...scopes: string[]) =>
      authorize()(sourceRequest("prompts/list", {}, as(...scopes)), answering({ prompts: [] }));
    await list("describe:/src/tool");
    await expect(list("describe:/other/**")).rejects.toMatchObject({
      message: 'token "t" may not list the prompts of /src: no describe scope reaches it',
    });
  });
});
