import type { Kysely } from "kysely";
import type { Logger } from "../../contract/log.js";
import { TimeSlices } from "../../isolation/time-slices.js";
import { markupText } from "../documents/extract-text.js";
import type { EvoDatabase } from "../emcp/schema.js";
import { urlUnder } from "../../net/url-under.js";
import type { TextIndex } from "./text-index.js";

/** How often the feed asks the database for documents edited since its last look. */
const REFRESH_MS = 60_000;

/**
 * Reading documents' HTML is main-thread work (500 documents, half a second):
 * the event loop gets a turn after each slice of this many milliseconds.
 */
const SLICE_MS = 8;

export interface CmsFeedSettings {
  /** The Evolution CMS database, as the emcp source takes it. */
  readonly database: string;
  readonly tablePrefix?: string | undefined;
  /** The site's address: a document's URL is this and its alias. */
  readonly siteUrl?: string | undefined;
  /** How often to look for edited documents; default a minute. */
  readonly refreshMs?: number | undefined;
}

/**
 * The published documents of an Evolution CMS site (the eMCP toolset's
 * database, read-only) in the search index: title, long title, description,
 * introduction and the readable text of the content. Documents edited since
 * the last look are read again every minute; unpublished or deleted ones
 * leave the index.
 */
export class CmsFeed {
  private db: Kysely<EvoDatabase> | undefined;
  private readonly timer: NodeJS.Timeout;
  private seen = -1;

  constructor(
    private readonly settings: CmsFeedSettings,
    private readonly index: TextIndex,
    private readonly log: Logger,
  ) {
    index.loadingFrom(this.refresh());
    this.timer = setInterval(() => void this.refresh(), settings.refreshMs ?? REFRESH_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.db?.destroy();
  }

  /**
   * Opened on first use and again after a failure: the database may appear
   * later. Its module (Kysely and the drivers) is loaded then too.
   */
  private async database(): Promise<Kysely<EvoDatabase>> {
    const { openDatabase } = await import("../emcp/open-database.js");
    this.db ??= openDatabase(this.settings.database, {
      prefix: this.settings.tablePrefix,
      readOnly: true,
    }).db;
    return this.db;
  }

  private async refresh(): Promise<void> {
    try {
      const db = await this.database();
      const rows = await db
        .selectFrom("site_content")
        .select([
          "id",
          "pagetitle",
          "longtitle",
          "description",
          "introtext",
          "content",
          "alias",
          "published",
          "deleted",
          "editedon",
          "pub_date",
          "createdon",
        ])
        .where("editedon", ">", this.seen)
        .execute();
      const slices = new TimeSlices(SLICE_MS);
      for (const row of rows) {
        await slices.next();
        const id = `cms:${row.id}`;
        if (row.published !== 1 || row.deleted !== 0) {
          this.index.remove(id);
          continue;
        }
        const body = await markupText(Buffer.from(row.content ?? ""), "html");
        const when = (row.pub_date || row.editedon || row.createdon) * 1000;
        this.index.put({
          id,
          title: row.pagetitle,
          text: [row.longtitle, row.description, row.introtext, body.text]
            .filter(Boolean)
            .join("\n"),
          url: this.settings.siteUrl
            ? urlUnder(this.settings.siteUrl, row.alias || String(row.id)).href
            : `evo://document/${row.id}`,
          modified: when,
        });
        this.seen = Math.max(this.seen, row.editedon);
      }
      if (rows.length > 0)
        this.log.info({ documents: rows.length }, "CMS documents indexed for search");
    } catch (err) {
      this.log.warn(
        { err: (err as Error).message },
        "reading the CMS for search failed; trying again in a minute",
      );
      const db = this.db;
      this.db = undefined;
      await db?.destroy().catch(() => undefined);
    }
  }
}
