import { watch, type FSWatcher } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "../../contract/log.js";
import { markupText } from "../documents/extract-text.js";
import type { TextIndex } from "./text-index.js";

const EXTENSIONS = new Set([".txt", ".md", ".markdown", ".html", ".htm"]);
/** Larger files are left out of the index. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/**
 * Folders of text, Markdown and HTML files in the search index: read at
 * start-up, then each file again as it changes (watched; a change re-reads
 * that file only). A file's date is its modification time; an HTML file's
 * text is its readable text.
 */
export class FolderFeed {
  private readonly watchers: FSWatcher[] = [];
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly folders: readonly string[],
    private readonly index: TextIndex,
    private readonly log: Logger,
  ) {
    index.loadingFrom(this.load());
  }

  close(): void {
    for (const w of this.watchers) w.close();
    for (const timer of this.pending.values()) clearTimeout(timer);
  }

  private async load(): Promise<void> {
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
      { folders: this.folders.length, texts: this.index.size },
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
    const id = `file:${path}`;
    try {
      const info = await stat(path);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return this.index.remove(id);
      const extracted = await markupText(
        await readFile(path),
        /\.html?$/i.test(path) ? "html" : "txt",
      );
      const heading = /^#\s+(.+)$/m.exec(extracted.text)?.[1]?.trim();
      this.index.put({
        id,
        title: extracted.title ?? heading ?? basename(path),
        text: extracted.text,
        url: pathToFileURL(path).href,
        modified: info.mtimeMs,
      });
    } catch {
      // Gone or unreadable: out of the index.
      this.index.remove(id);
    }
  }
}

async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && EXTENSIONS.has(extname(e.name).toLowerCase()))
    .map((e) => join(e.parentPath, e.name));
}
