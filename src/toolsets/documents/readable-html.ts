import { SAXParser } from "parse5-sax-parser";

/** Elements whose content is not the page's readable text. */
const NOT_CONTENT = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  "iframe",
  "nav",
  "header",
  "footer",
  "aside",
  "form",
  "button",
  "head",
]);
/** Elements that start and end a line of text. */
const BLOCKS = new Set([
  "p",
  "div",
  "li",
  "dt",
  "dd",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "tr",
  "section",
  "article",
  "blockquote",
  "pre",
  "table",
  "br",
]);
/** Elements that never have content, so never an end tag. */
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

/**
 * The readable text of an HTML page, from parse5's stream of tokens
 * without building a tree: no scripts, styles, navigation or hidden
 * elements, a line break around each block. Only the elements left out are
 * tracked, each end tag compared with the last of them, so time and memory
 * grow with the page's length, never with its nesting: a tree walked
 * recursively took minutes on 100,000 nested elements (or overflowed the
 * stack), and htmlparser2's own element stack grows by `unshift`, in time
 * quadratic in the depth.
 */
export function readableHtml(html: string): Promise<{ text: string; title?: string | undefined }> {
  const parts: string[] = [];
  let title = "";
  let inTitle = false;
  /** The open elements whose content is left out, innermost last. */
  const leftOut: string[] = [];
  const parser = new SAXParser();
  parser.on("startTag", ({ tagName, attrs, selfClosing }) => {
    // A page that never closes its head ends it with its body.
    if (tagName === "body" && leftOut[0] === "head") leftOut.length = 0;
    if (tagName === "title") inTitle = true;
    const hidden = attrs.some(
      (a) => a.name === "hidden" || (a.name === "aria-hidden" && a.value === "true"),
    );
    const empty = selfClosing || VOID.has(tagName);
    if (leftOut.length === 0 && BLOCKS.has(tagName)) parts.push("\n");
    if (!empty && (hidden || NOT_CONTENT.has(tagName))) leftOut.push(tagName);
  });
  parser.on("endTag", ({ tagName }) => {
    if (tagName === "title") inTitle = false;
    if (leftOut.at(-1) === tagName) leftOut.pop();
    else if (leftOut.length === 0 && BLOCKS.has(tagName)) parts.push("\n");
  });
  parser.on("text", ({ text }) => {
    if (inTitle) title += text;
    else if (leftOut.length === 0) parts.push(text);
  });
  return new Promise((resolve, reject) => {
    parser.on("error", reject);
    parser.on("finish", () => resolve({ text: parts.join(""), title: title.trim() || undefined }));
    // A Transform stream: its readable side (the HTML, passed through) is not wanted.
    parser.resume();
    parser.end(html);
  });
}
