/**
 * Multi-step tasks over the demo fleet (examples/demo.json), each written
 * twice: as the calls a model makes one by one, deciding on what each
 * answered (`steps`), and as one `meta_run` script doing the same (`script`).
 * Both must come to the same answer. `searches` are what a model using the
 * meta tools searches for.
 */
/** What the tasks read of the answers: CMS pages, calculator and time results, file text. */
interface Doc {
  id: number;
  pagetitle: string;
  published: boolean;
  hidemenu: boolean;
  template: number;
}
interface Answer {
  items: Doc[];
  meta: { has_more: boolean };
  result: number;
  utc_offset: string;
  content: string;
}
type Call = (path: string, args: Record<string, unknown>) => Promise<Answer>;

export interface Task {
  readonly name: string;
  readonly request: string;
  readonly searches: readonly string[];
  steps(call: Call): Promise<unknown>;
  readonly script: string;
}

const sumOf = (text: unknown) => Number(/is (-?\d+)/.exec(String(text))?.[1]);

/** A CMS search, then a list tool called for each document found: how many items each has. */
function countPerItem(task: {
  name: string;
  request: string;
  searches: string[];
  search: Record<string, unknown>;
  tool: string;
}): Task {
  return {
    name: task.name,
    request: task.request,
    searches: task.searches,
    async steps(call) {
      const found = await call("/cms/evo.content.search", task.search);
      const counts: Record<string, number> = {};
      for (const d of found.items)
        counts[d.id] = (await call(task.tool, { id: d.id, limit: 100 })).items.length;
      return counts;
    },
    script: `const found = await call("/cms/evo.content.search", ${JSON.stringify(task.search)});
const counts = {};
for (const d of found.items) counts[d.id] = (await call(${JSON.stringify(task.tool)}, { id: d.id, limit: 100 })).items.length;
return counts;`,
  };
}

export const TASKS: Task[] = [
  {
    name: "fan-out: sums, keep the large",
    request: "Add each pair (1,4), (2,5) … (8,11) and tell me which sums are above 12.",
    searches: ["add two numbers"],
    async steps(call) {
      const sums = [];
      for (let a = 1; a <= 8; a++) sums.push(sumOf(await call("/demo/add", { a, b: a + 3 })));
      return sums.filter((s) => s > 12);
    },
    script: `const sums = [];
for (let a = 1; a <= 8; a++) sums.push(Number(/is (-?\\d+)/.exec(await tools.demo.add({ a, b: a + 3 }))[1]));
return sums.filter((s) => s > 12);`,
  },
  {
    name: "filter: published but hidden",
    request: "Which of the first 50 CMS documents are published but hidden from menus? Ids only.",
    searches: ["search documents in the CMS"],
    async steps(call) {
      const page = await call("/cms/evo.content.search", { limit: 50 });
      return page.items.filter((d) => d.published && d.hidemenu).map((d) => d.id);
    },
    script: `const page = await call("/cms/evo.content.search", { limit: 50 });
return page.items.filter((d) => d.published && d.hidemenu).map((d) => d.id);`,
  },
  countPerItem({
    name: "fan-out: children per top document",
    request: "How many children does each of the first 5 top-level CMS documents have?",
    searches: ["search documents in the CMS", "children of a CMS document"],
    search: { parent: 0, limit: 5 },
    tool: "/cms/evo.content.children",
  }),
  {
    name: "page through a list",
    request: "How many CMS documents are published? Count them all.",
    searches: ["search documents in the CMS"],
    async steps(call) {
      let count = 0;
      for (let offset = 0; ; offset += 100) {
        const page = await call("/cms/evo.content.search", { published: true, limit: 100, offset });
        count += page.items.length;
        if (!page.meta.has_more) return count;
      }
    },
    script: `let count = 0;
for (let offset = 0; ; offset += 100) {
  const page = await call("/cms/evo.content.search", { published: true, limit: 100, offset });
  count += page.items.length;
  if (!page.meta.has_more) return count;
}`,
  },
  {
    name: "fan-out: ancestors' titles",
    request: "What are the titles above CMS documents 120, 240 and 360 in the tree?",
    searches: ["ancestors of a CMS document"],
    async steps(call) {
      const out: Record<string, string[]> = {};
      for (const id of [120, 240, 360])
        out[id] = (await call("/cms/evo.content.ancestors", { id, limit: 10 })).items.map(
          (d) => d.pagetitle,
        );
      return out;
    },
    script: `const out = {};
for (const id of [120, 240, 360])
  out[id] = (await call("/cms/evo.content.ancestors", { id, limit: 10 })).items.map((d) => d.pagetitle);
return out;`,
  },
  {
    name: "join two sources: files and CMS",
    request:
      "Which words of the demo notes file are also words of a CMS document title among the first 100?",
    searches: ["read a text file", "search documents in the CMS"],
    async steps(call) {
      const notes: unknown = await call("/files/read_text_file", { path: "notes.txt" });
      const text = typeof notes === "string" ? notes : (notes as Answer).content;
      const words = new Set(
        String(text)
          .toLowerCase()
          .match(/[a-z]+/g) ?? [],
      );
      const page = await call("/cms/evo.content.search", { limit: 100 });
      const titles = new Set(
        page.items.flatMap((d) => d.pagetitle.toLowerCase().match(/[a-z]+/g) ?? []),
      );
      return [...words].filter((w) => titles.has(w)).sort();
    },
    script: `const notes = await call("/files/read_text_file", { path: "notes.txt" });
const text = typeof notes === "string" ? notes : notes.content;
const words = new Set(String(text).toLowerCase().match(/[a-z]+/g) ?? []);
const page = await call("/cms/evo.content.search", { limit: 100 });
const titles = new Set(page.items.flatMap((d) => d.pagetitle.toLowerCase().match(/[a-z]+/g) ?? []));
return [...words].filter((w) => titles.has(w)).sort();`,
  },
  {
    name: "conditional follow-up",
    request: "Compute 17 × 23; if it is over 300, also give its square root to 3 places.",
    searches: ["calculate a math expression"],
    async steps(call) {
      const product = (await call("/registry/calculator/calculate", { expression: "17 * 23" }))
        .result;
      if (product <= 300) return { product };
      const root = await call("/registry/calculator/calculate", {
        expression: `round(sqrt(${product}), 3)`,
      });
      return { product, root: root.result };
    },
    script: `const product = (await call("/registry/calculator/calculate", { expression: "17 * 23" })).result;
if (product <= 300) return { product };
const root = await call("/registry/calculator/calculate", { expression: \`round(sqrt(\${product}), 3)\` });
return { product, root: root.result };`,
  },
  {
    name: "fan-out: offsets in three zones",
    request: "What are the UTC offsets now in Tokyo, Berlin and New York?",
    searches: ["current time in a timezone"],
    async steps(call) {
      const out: Record<string, string> = {};
      for (const zone of ["Asia/Tokyo", "Europe/Berlin", "America/New_York"])
        out[zone] = (await call("/registry/time_tool/current_time", { timezone: zone })).utc_offset;
      return out;
    },
    script: `const out = {};
for (const zone of ["Asia/Tokyo", "Europe/Berlin", "America/New_York"])
  out[zone] = (await call("/registry/time_tool/current_time", { timezone: zone })).utc_offset;
return out;`,
  },
  {
    name: "filter a directory listing",
    request: "Which files in the demo folder are Markdown?",
    searches: ["list a directory"],
    async steps(call) {
      const listing = await call("/files/list_directory", { path: "." });
      return String(listing.content)
        .split("\n")
        .filter((l) => l.endsWith(".md"))
        .map((l) => l.replace("[FILE] ", ""));
    },
    script: `const listing = await call("/files/list_directory", { path: "." });
return String(listing.content).split("\\n").filter((l) => l.endsWith(".md")).map((l) => l.replace("[FILE] ", ""));`,
  },
  countPerItem({
    name: "search, then fan-out",
    request:
      "Find documents in the CMS under template 2, then give the number of siblings of the first three.",
    searches: ["search documents in the CMS", "siblings of a CMS document"],
    search: { template: 2, limit: 3 },
    tool: "/cms/evo.content.siblings",
  }),
  {
    name: "aggregate: documents per template",
    request: "How many of the first 100 CMS documents use each template?",
    searches: ["search documents in the CMS"],
    async steps(call) {
      const page = await call("/cms/evo.content.search", { limit: 100 });
      const counts: Record<string, number> = {};
      for (const d of page.items) counts[d.template] = (counts[d.template] ?? 0) + 1;
      return counts;
    },
    script: `const page = await call("/cms/evo.content.search", { limit: 100 });
const counts = {};
for (const d of page.items) counts[d.template] = (counts[d.template] ?? 0) + 1;
return counts;`,
  },
];
