import { watch, type FSWatcher } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, basename } from "node:path";
import { pathToFileURL } from "node:url";
import MiniSearch from "minisearch";
import type { Logger } from "../../contract/log.js";
import { extractText } from "../documents/extract-text.js";
import type { SearchHit, SearchProvider, SearchQuery } from "./search-provider.js";

const EXTENSIONS = new Set([".txt", ".md", ".markdown", ".html", ".htm"]);
/** Larger files are left out of the index. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const SNIPPET_CHARS = 240;

interface IndexedFile {
  readonly path: string;
  readonly title: string;
  readonly text: string;
  readonly modified: number;
}

/**
 * A BM25 index (minisearch) over folders of text, Markdown and HTML files:
 * built at start-up, then kept fresh as files change (each change re-reads
 * that file only). Needs no network. A file's date is its modification time.
 */
export class FolderIndex implements SearchProvider {
  readonly name = "folders";
  private readonly index = new MiniSearch<IndexedFile>({
    idField: "path",
    fields: ["title", "text"],
    searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.2, combineWith: "AND" },
  });
  private readonly files = new Map<string, IndexedFile>();
  private readonly watchers: FSWatcher[] = [];
  private readonly pending = new Map<string, NodeJS.Timeout>();
  readonly ready: Promise<void>;

  constructor(
    private readonly folders: readonly string[],
    private readonly log: Logger,
  ) {
    this.ready = this.build();
  }

  get size(): number {
    return this.files.size;
  }

  async search({ query, limit, daysBack }: SearchQuery): Promise<SearchHit[]> {
    await this.ready;
    const since = daysBack === undefined ? 0 : Date.now() - daysBack * 86_400_000;
    let found = this.index.search(query);
    // Every word at once first; any of them when that finds nothing.
    if (found.length === 0) found = this.index.search(query, { combineWith: "OR" });
    return found
      .map((r) => this.files.get(r.id as string)!)
      .filter((file) => file.modified >= since)
      .slice(0, limit)
      .map((file) => ({
        title: file.title,
        url: pathToFileURL(file.path).href,
        snippet: snippet(file.text, query),
        published: new Date(file.modified).toISOString(),
      }));
  }

  close(): void {
    for (const w of this.watchers) w.close();
    for (const timer of this.pending.values()) clearTimeout(timer);
  }

  private async build(): Promise<void> {
    for (const folder of this.folders) {
      for (const path of await walk(folder).catch(() => [])) await this.refresh(path);
      try {
        const watcher = watch(folder, { recursive: true }, (_event, name) => {
          if (name) this.changed(join(folder, name.toString()));
        });
        watcher.on("error", (err) =>
          this.log.warn({ folder, err: err.message }, "watching a search folder failed"),
        );
        this.watchers.push(watcher);
      } catch (err) {
        this.log.warn({ folder, err: (err as Error).message }, "a search folder cannot be watched");
      }
    }
    this.log.info(
      { files: this.files.size, folders: this.folders.length },
      "search folders indexed",
    );
  }

  /** Re-reads a file shortly after it changed (editors write in several steps). */
  private changed(path: string): void {
    if (!EXTENSIONS.has(extname(path).toLowerCase())) return;
    clearTimeout(this.pending.get(path));
    this.pending.set(
      path,
      setTimeout(() => {
        this.pending.delete(path);
        void this.refresh(path);
      }, 100),
    );
  }

  private async refresh(path: string): Promise<void> {
    if (this.files.has(path)) {
      this.index.discard(path);
      this.files.delete(path);
    }
    try {
      const info = await stat(path);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return;
      const bytes = await readFile(path);
      const html = /\.html?$/i.test(path);
      const extracted = await extractText(bytes, html ? "html" : "txt");
      const heading = /^#\s+(.+)$/m.exec(extracted.text)?.[1];
      const file: IndexedFile = {
        path,
        title: extracted.title ?? heading?.trim() ?? basename(path),
        text: extracted.text,
        modified: info.mtimeMs,
      };
      this.files.set(path, file);
      this.index.add(file);
    } catch {
      // Gone or unreadable: it stays out of the index.
    }
  }
}

async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && EXTENSIONS.has(extname(e.name).toLowerCase()))
    .map((e) => join(e.parentPath, e.name));
}

/** Text around the first word of the query found in it. */
function snippet(text: string, query: string): string {
  const flat = text.replace(/\s+/g, " ");
  const lower = flat.toLowerCase();
  const at = query
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 1)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0];
  const start = Math.max(0, (at ?? 0) - SNIPPET_CHARS / 3);
  const piece = flat.slice(start, start + SNIPPET_CHARS).trim();
  return `${start > 0 ? "…" : ""}${piece}${start + SNIPPET_CHARS < flat.length ? "…" : ""}`;
}
