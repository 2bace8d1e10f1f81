import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ARTICLE_PAGE } from "../../../test/helpers/documents.js";
import { readableHtml } from "./readable-html.js";

describe("readableHtml", () => {
  it("keeps the article, one line per block; leaves out scripts, styles, navigation, header and footer", async () => {
    const { text, title } = await readableHtml(ARTICLE_PAGE);
    expect(title).toBe("Rivers of Europe");
    const lines = text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    expect(lines).toEqual([
      "The Danube",
      "The Danube flows through Vienna and Budapest.",
      "It is the second-longest river in Europe.",
    ]);
  });

  it("leaves out hidden elements, decodes entities, breaks lines at <br>", async () => {
    const { text } = await readableHtml(
      '<body><p hidden>no</p><div aria-hidden="true">nor <b>this</b></div><p>fish &amp; chips<br>peas</p></body>',
    );
    expect(text.trim().split(/\n+/)).toEqual(["fish & chips", "peas"]);
  });

  it("a page that never closes its head still has a body", async () => {
    const { text, title } = await readableHtml("<html><head><title>T</title><body><p>shown");
    expect([title, text.trim()]).toEqual(["T", "shown"]);
  });

  it("reads 200,000 nested elements, opened and never closed, without recursing", async () => {
    const { text } = await readableHtml(`<body>${"<div><span>".repeat(200_000)}deep`);
    expect(text.trim()).toBe("deep");
  });

  it("reads any text at all without throwing (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (html) => {
        expect(typeof (await readableHtml(html)).text).toBe("string");
      }),
    );
  });

  it("never lets a script's text through, whatever elements surround it (fast-check)", async () => {
    const piece = fc.constantFrom(
      "<div>",
      "</div>",
      "<p>",
      "</p>",
      "<nav>",
      "</nav>",
      "<br>",
      "<br/>",
      "<span hidden>",
      "</span>",
      "text",
      " ",
      "&amp;",
      "<!-- a comment -->",
      "<style>x{}</style>",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 40 }), async (pieces) => {
        const html = `<body>${pieces.join("")}<script>SECRET</script>`;
        const { text } = await readableHtml(html);
        expect(typeof text).toBe("string");
        expect(text).not.toContain("SECRET");
      }),
    );
  });
});
