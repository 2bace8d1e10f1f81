import { strToU8, Zip, ZipDeflate } from "fflate";
import JSZip from "jszip";

/**
 * A one-page PDF whose text is `lines`, written object by object with a
 * correct cross-reference table, as a PDF writer would.
 */
export function makePdf(lines: string[]): Buffer {
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 12 Tf 72 720 Td ${lines.map((l) => `(${escape(l)}) Tj 0 -16 Td`).join(" ")} ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** A DOCX (a zip of WordprocessingML) with one paragraph per entry of `paragraphs`. */
export async function makeDocx(paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    "[Content_Types].xml",
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    "_rels/.rels",
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const body = paragraphs
    .map(
      (p) =>
        `<w:p><w:r><w:t xml:space="preserve">${p.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</w:t></w:r></w:p>`,
    )
    .join("");
  zip.file(
    "word/document.xml",
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: "nodebuffer" });
}

/** An HTML page whose readable text is the article; scripts, styles and navigation around it. */
export const ARTICLE_PAGE = `<!doctype html>
<html><head><title>Rivers of Europe</title>
<style>body { color: red }</style>
<script>var secret = "do not extract me"; document.write("nor me");</script>
</head><body>
<nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
<header>Site banner</header>
<article><h1>The Danube</h1>
<p>The Danube flows through Vienna and Budapest.</p>
<p>It is the second-longest river in Europe.</p></article>
<footer>Copyright notice</footer>
<script>trackVisitor();</script>
</body></html>`;

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/**
 * A DOCX whose document.xml holds `megabytes` MiB of paragraphs, streamed
 * through the compressor a MiB at a time: a small file that unpacks to a
 * great deal (a zip bomb in Word's clothes).
 */
export function makeInflatingDocx(megabytes: number): Buffer {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    chunks.push(data);
  });
  for (const [name, text] of [
    ["[Content_Types].xml", CONTENT_TYPES],
    ["_rels/.rels", RELS],
  ] as const) {
    const part = new ZipDeflate(name);
    zip.add(part);
    part.push(strToU8(text), true);
  }
  const document = new ZipDeflate("word/document.xml", { level: 9 });
  zip.add(document);
  document.push(
    strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>',
    ),
  );
  const paragraph = "<w:p><w:r><w:t>All work and no play makes a dull document.</w:t></w:r></w:p>";
  const mebibyte = strToU8(paragraph.repeat(Math.floor((1024 * 1024) / paragraph.length)));
  for (let i = 0; i < megabytes; i++) document.push(mebibyte);
  document.push(strToU8("</w:body></w:document>"), true);
  zip.end();
  return Buffer.concat(chunks);
}

/** A PDF of `pages` pages, all showing one short line (a page is about a hundred bytes). */
export function makePagedPdf(pages: number): Buffer {
  const stream = "BT /F1 12 Tf 72 720 Td (page) Tj ET";
  const first = 5;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(" ")}] /Count ${pages} >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ...Array.from(
      { length: pages },
      () =>
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
    ),
  ];
  const parts = ["%PDF-1.4\n"];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = `${i + 1} 0 obj\n${body}\nendobj\n`;
    parts.push(object);
    length += object.length;
  });
  parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) parts.push(`${String(offset).padStart(10, "0")} 00000 n \n`);
  parts.push(
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
  );
  return Buffer.from(parts.join(""), "latin1");
}
