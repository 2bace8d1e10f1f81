import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { writeConfig } from "../helpers/broker.js";
import { makeInflatingDocx, makePagedPdf } from "../helpers/documents.js";
import { healthy, underAttack } from "../helpers/under-attack.js";

/**
 * Documents built to be expensive, read through the document analyzer of a
 * broker in a process of its own (the predefined tools on, no auth, a folder
 * of documents as the demo has), while `/healthz` is asked again and again.
 */
let broker: BrokerProcess;
let folder: string;
let nextId = 1;

const url = (name: string) => pathToFileURL(join(folder, name)).href;

async function document(
  fn: "extract_text" | "analyze_document",
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ body: { result?: any; error?: any }; bytes: number }> {
  const res = await fetch(`${broker.url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: {
        tool_name: "document_analyzer",
        function_name: fn,
        arguments: { document_url: url(name), ...extra },
      },
    }),
  });
  const text = await res.text();
  return { body: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

/** Reads `name` while /healthz is probed; the broker must answer it within a second throughout. */
async function attack(fn: "extract_text" | "analyze_document", name: string, extra = {}) {
  const watched = await underAttack(
    broker.child.pid!,
    () => document(fn, name, extra),
    () => healthy(broker.url),
  );
  expect(broker.child.exitCode).toBeNull();
  expect(watched.slowestProbeMs).toBeLessThan(1000);
  return watched;
}

const NEWS =
  "Angela Merkel met Emmanuel Macron in Paris on 3 March 2021. Siemens and the European Commission announced a partnership. ";

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "mcp-broker-hostile-docs-"));
  writeFileSync(join(folder, "bomb.docx"), makeInflatingDocx(200));
  writeFileSync(join(folder, "long.docx"), makeInflatingDocx(6));
  writeFileSync(join(folder, "nested.html"), `<html><body>${"<div>".repeat(132_000)}deep`);
  writeFileSync(join(folder, "deeper.html"), `<html><body>${"<div><span>".repeat(200_000)}deep`);
  writeFileSync(join(folder, "pages.pdf"), makePagedPdf(20_000));
  writeFileSync(join(folder, "news.txt"), NEWS.repeat(Math.ceil(3_000_000 / NEWS.length)));
  broker = await spawnBroker(
    writeConfig({ tree: [], toolsets: { documents: { roots: [folder] } } }),
  );
});
afterAll(() => broker?.stop());

describe("documents built to be expensive", () => {
  it("a DOCX of a megabyte that unpacks to 200 MiB of XML is refused before it is unpacked", async () => {
    const { result } = await attack("extract_text", "bomb.docx");
    expect(result.body.error, JSON.stringify(result.body)).toMatchObject({ code: -32004 });
    expect(result.body.error.data.details).toMatch(
      /^the DOCX's XML unpacks to \d+ bytes; at most 10485760 are read \(toolsets\.documents\.max_unzipped_mb\)$/,
    );
  });

  it("a DOCX of millions of characters gives the first million, marked, not a 100 MB answer", async () => {
    const { result } = await attack("extract_text", "long.docx");
    const data = result.body.result?.data;
    expect(data, JSON.stringify(result.body).slice(0, 300)).toMatchObject({
      format: "docx",
      truncated: true,
    });
    expect(data.text).toHaveLength(1_000_000);
    expect(data.characters).toBeGreaterThan(3_000_000);
    expect(result.bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it.each(["nested.html", "deeper.html"])(
    "%s, 100,000s of nested elements, is read in one pass",
    async (name) => {
      const { result } = await attack("extract_text", name);
      expect(result.body.result?.data, JSON.stringify(result.body)).toMatchObject({
        format: "html",
        text: "deep",
      });
    },
  );

  it("a PDF of 20,000 pages is refused once its page count is read", async () => {
    const { result } = await attack("extract_text", "pages.pdf");
    expect(result.body.error.data.details).toBe(
      "the PDF has 20000 pages; at most 1000 are read (toolsets.documents.max_pages)",
    );
  });

  it("entities in 3 MB of text: the first 200,000 characters are analyzed, and the answer says so", async () => {
    const { result } = await attack("analyze_document", "news.txt", { analysis_type: "entities" });
    const data = result.body.result?.data;
    expect(data, JSON.stringify(result.body).slice(0, 300)).toMatchObject({
      analysis_type: "entities",
      people: expect.arrayContaining([expect.objectContaining({ text: "Angela Merkel" })]),
    });
    expect(data.analyzed_characters).toBeLessThanOrEqual(200_000);
    expect(data.characters).toBeGreaterThan(2_900_000);
  });
});
