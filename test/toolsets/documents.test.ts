import { mkdtempSync, writeFileSync, mkdirSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { ARTICLE_PAGE, makeDocx, makePdf } from "../helpers/documents.js";

const NEWS = [
  "Angela Merkel met Emmanuel Macron in Paris on 3 March 2021.",
  "Siemens and the European Commission announced a wonderful new partnership.",
  "The partnership brings clean energy to Germany and France.",
  "Critics called the plan terrible and wasteful.",
  "Angela Merkel said the partnership would last for decades.",
].join(" ");

let folder: string;
let outside: string;
let server: Server;
let base: string;
let open: TestBroker;
let guarded: TestBroker;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "mcp-broker-docs-"));
  outside = mkdtempSync(join(tmpdir(), "mcp-broker-elsewhere-"));
  const files: Record<string, Buffer> = {
    "report.pdf": makePdf(["Quarterly report", "Revenue grew by 12 percent."]),
    "letter.docx": await makeDocx(["Dear reader,", "The meeting moves to Tuesday."]),
    "page.html": Buffer.from(ARTICLE_PAGE),
    "notes.txt": Buffer.from(`Plain notes.\n\n\n\nSecond    paragraph.`),
    "news.txt": Buffer.from(NEWS),
    "happy.txt": Buffer.from(
      "What a wonderful, delightful day. We love the new park and the kind people.",
    ),
    "sad.txt": Buffer.from(
      "This is a terrible, awful failure. Everyone hates the broken, ugly result.",
    ),
    "blob.bin": Buffer.from([0, 1, 2, 3, 255, 254, 0, 7]),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(folder, name), bytes);
  writeFileSync(join(outside, "secret.txt"), "not for you");
  mkdirSync(join(folder, "sub"));
  symlinkSync(join(outside, "secret.txt"), join(folder, "sub", "link.txt"));

  server = createServer((req, res) => {
    const name = req.url!.slice(1);
    if (name === "redirect") {
      res.writeHead(302, { location: "/page.html" });
      return res.end();
    }
    const bytes = files[name];
    if (!bytes) {
      res.writeHead(404);
      return res.end("missing");
    }
    res.writeHead(200);
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  open = await startBroker({
    tree: [],
    toolsets: { documents: { roots: [folder], allow_private_networks: true } },
  });
  guarded = await startBroker({ tree: [], toolsets: { documents: { roots: [folder] } } });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let nextId = 1;
async function call(broker: TestBroker, fn: string, args: object) {
  const { body } = await broker.post("/rpc", {
    jsonrpc: "2.0",
    method: "tools/call",
    params: { tool_name: "document_analyzer", function_name: fn, arguments: args },
    id: nextId++,
  });
  return body;
}
const file = (name: string) => pathToFileURL(join(folder, name)).href;

describe("extract_text", () => {
  it.each([
    ["report.pdf", "pdf", "Quarterly report", "Revenue grew by 12 percent."],
    ["letter.docx", "docx", "Dear reader,", "The meeting moves to Tuesday."],
    ["notes.txt", "txt", "Plain notes.", "Second paragraph."],
  ])("reads %s as %s, detected from its bytes", async (name, format, first, last) => {
    for (const url of [file(name), `${base}/${name}`]) {
      const { result } = await call(open, "extract_text", { document_url: url });
      expect(result?.data, url).toMatchObject({ format });
      expect(result.data.text).toContain(first);
      expect(result.data.text).toContain(last);
    }
  });

  it("gives the readable text of a page, without scripts, styles and navigation", async () => {
    const { result } = await call(open, "extract_text", { document_url: `${base}/redirect` });
    expect(result.data).toMatchObject({ format: "html", title: "Rivers of Europe" });
    expect(result.data.text).toBe(
      "The Danube\n\nThe Danube flows through Vienna and Budapest.\n\nIt is the second-longest river in Europe.",
    );
  });

  it("reads with the format asked for, and names what it cannot read", async () => {
    const asText = await call(open, "extract_text", {
      document_url: file("page.html"),
      format: "txt",
    });
    expect(asText.result.data.text).toContain("<script>");
    const binary = await call(open, "extract_text", { document_url: file("blob.bin") });
    expect(binary.error).toMatchObject({ code: -32004 });
    expect(binary.error.data.details).toContain("not a document the analyzer reads");
    const missing = await call(open, "extract_text", { document_url: `${base}/nothing.pdf` });
    expect(missing.error.data.details).toContain("answered HTTP 404");
  });

  it("reads file:// only inside the configured roots, symlinks followed", async () => {
    for (const url of [
      pathToFileURL(join(outside, "secret.txt")).href,
      file("sub/link.txt"),
      `${file("")}/../${outside.split("/").pop()}/secret.txt`,
    ]) {
      const { error } = await call(open, "extract_text", { document_url: url });
      expect(error?.code, url).toBe(-32004);
      expect(error.data.details).toContain("outside the folders of toolsets.documents.roots");
    }
  });

  it("says the same of a host file outside the roots whether it exists or not", async () => {
    const answers = await Promise.all(
      [
        "/etc/passwd",
        "/etc/no-such-file-here",
        join(outside, "secret.txt"),
        join(outside, "nope"),
      ].map(async (path) => {
        const { error } = await call(open, "extract_text", {
          document_url: pathToFileURL(path).href,
        });
        return error.data.details.replace(pathToFileURL(path).href, "URL");
      }),
    );
    expect(new Set(answers)).toEqual(
      new Set(["URL is outside the folders of toolsets.documents.roots"]),
    );
  });
});

describe("the SSRF guard", () => {
  it.each([
    ["loopback", () => `${base}/notes.txt`],
    [
      "a host name resolving to loopback",
      () => `${base.replace("127.0.0.1", "localhost")}/notes.txt`,
    ],
    ["a private address", () => "http://10.0.0.1/doc.pdf"],
    ["link-local metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["IPv6 loopback", () => "http://[::1]/doc"],
    ["an IPv4-mapped IPv6 loopback", () => "http://[::ffff:127.0.0.1]/doc"],
    ["unique local IPv6", () => "http://[fd00::1]/doc"],
  ])("refuses %s by default", async (_what, url) => {
    const { error } = await call(guarded, "extract_text", { document_url: url() });
    expect(error?.code).toBe(-32004);
    expect(error.data.details).toMatch(/not fetched: .*loopback, private or link-local/);
  });

  it("refuses other schemes", async () => {
    const { error } = await call(guarded, "extract_text", {
      document_url: "ftp://example.com/a.pdf",
    });
    expect(error.data.details).toContain("must be https://, http:// or file://");
  });
});

describe("analyze_document", () => {
  const analyze = async (analysis_type: string) =>
    (await call(open, "analyze_document", { document_url: file("news.txt"), analysis_type })).result
      .data;

  it("summarizes with the most central sentences, in their order", async () => {
    const data = await analyze("summary");
    expect(data.total_sentences).toBe(5);
    expect(data.sentences).toHaveLength(1);
    expect(NEWS).toContain(data.summary);
  });

  it("ranks keywords with scores", async () => {
    const { keywords } = await analyze("keywords");
    expect(keywords[0]).toEqual({ keyword: "partnership", count: 3, score: 1 });
    expect(keywords.map((k: { keyword: string }) => k.keyword)).not.toContain("the");
  });

  it("scores sentiment from a lexicon, overall and by sentence", async () => {
    const sentimentOf = async (name: string) =>
      (
        await call(open, "analyze_document", {
          document_url: file(name),
          analysis_type: "sentiment",
        })
      ).result.data;
    expect(await sentimentOf("happy.txt")).toMatchObject({
      label: "positive",
      negative_sentences: 0,
    });
    expect((await sentimentOf("happy.txt")).score).toBeGreaterThan(0.3);
    expect(await sentimentOf("sad.txt")).toMatchObject({
      label: "negative",
      positive_sentences: 0,
    });
    const mixed = await analyze("sentiment");
    expect(mixed.positive_sentences).toBeGreaterThanOrEqual(1);
    expect(mixed.negative_sentences).toBe(1);
  });

  it("finds people, places, organizations and dates, with counts", async () => {
    const data = await analyze("entities");
    expect(data.people).toContainEqual({ text: "Angela Merkel", count: 2 });
    expect(data.people).toContainEqual({ text: "Emmanuel Macron", count: 1 });
    expect(data.places.map((p: { text: string }) => p.text)).toEqual(
      expect.arrayContaining(["Paris", "Germany", "France"]),
    );
    expect(data.organizations.map((o: { text: string }) => o.text)).toEqual(
      expect.arrayContaining(["Siemens"]),
    );
    expect(data.dates).toContainEqual({ text: "3 March 2021", count: 1 });
  });

  it("works on a PDF through the tree too", async () => {
    const { body } = await open.post("/meta_call", {
      path: "/registry/document_analyzer/analyze_document",
      args: { document_url: file("report.pdf"), analysis_type: "keywords" },
    });
    expect(
      body.output.structuredContent.keywords.map((k: { keyword: string }) => k.keyword),
    ).toContain("revenue");
  });
});
