import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import GithubSlugger from "github-slugger";
import MarkdownIt, { type Token } from "markdown-it";
import { describe, expect, it } from "vitest";

/**
 * The README and docs/ as a reader follows them: every relative link names a
 * file that is there, and every #fragment a heading of that file (as GitHub
 * makes anchors). Links off the repository are not fetched.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const markdown = new MarkdownIt({ html: true });
const pages = [
  join(root, "README.md"),
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(root, "docs", f)),
];

function tokensOf(file: string): Token[] {
  const flat: Token[] = [];
  const walk = (tokens: Token[]) => {
    for (const token of tokens) {
      flat.push(token);
      if (token.children) walk(token.children);
    }
  };
  walk(markdown.parse(readFileSync(file, "utf8"), {}));
  return flat;
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors GitHub gives a page's headings, duplicates numbered as it does. */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  const slugger = new GithubSlugger();
  anchors = new Set();
  const tokens = tokensOf(file);
  tokens.forEach((token, i) => {
    if (token.type !== "heading_open") return;
    const text = (tokens[i + 1]?.children ?? [])
      .filter((t) => t.type === "text" || t.type === "code_inline")
      .map((t) => t.content)
      .join("");
    anchors!.add(slugger.slug(text));
  });
  anchorCache.set(file, anchors);
  return anchors;
}

function linksOf(file: string): string[] {
  return tokensOf(file).flatMap((token) => {
    const target =
      token.type === "link_open"
        ? token.attrGet("href")
        : token.type === "image"
          ? token.attrGet("src")
          : null;
    return target === null ? [] : [String(target)];
  });
}

/** What is wrong with a link, or undefined when it resolves. */
function brokenLink(from: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const [path = "", fragment] = href.split("#", 2);
  const target = path === "" ? from : resolve(dirname(from), decodeURIComponent(path));
  if (!target.startsWith(root)) return "points outside the repository";
  if (!existsSync(target)) return "names no file";
  if (fragment === undefined || fragment === "") return undefined;
  if (statSync(target).isDirectory() || !target.endsWith(".md"))
    return "has a #fragment on a file that is not Markdown";
  return anchorsOf(target).has(fragment)
    ? undefined
    : `names no heading of ${relative(root, target)}`;
}

describe("the documentation", () => {
  it.each(pages.map((p) => [relative(root, p), p]))("%s: every link resolves", (_name, page) => {
    const broken = linksOf(page).flatMap((href) => {
      const why = brokenLink(page, href);
      return why === undefined ? [] : [`${href} ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it("the README is a first screen and a tour, at most 20 KB; the reference is in docs/", () => {
    expect(statSync(join(root, "README.md")).size).toBeLessThanOrEqual(20 * 1024);
  });
});
