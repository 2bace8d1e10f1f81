import type { Implementation, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import { ExponentialBackoff, type IBackoff } from "cockatiel";
import { asBrokerError, BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { CacheHint, Router, SourceState, SourceStatus } from "../contract/router.js";

/** What a source says of itself in `initialize`. */
export interface SourceIntroduction {
  readonly serverInfo?: Implementation | undefined;
  readonly instructions?: string | undefined;
  readonly capabilities: ServerCapabilities;
  readonly toolsCacheHint?: CacheHint | undefined;
}

/** Restart delays: from ~250 ms, growing with decorrelated jitter, never above 30 s. */
const BACKOFF = new ExponentialBackoff({ initialDelay: 250, maxDelay: 30_000 });
/** A source that stayed up this long starts its backoff over when it next goes down. */
const STABLE_MS = 30_000;

/**
 * Keeps one source running, whatever its kind: starts it, and restarts it with
 * capped, jittered backoff whenever a start fails or the source reports itself
 * down, until it is closed. Its state is the one `/healthz`, `meta_desc` and
 * `/metrics` show. Requests reach the source only while it is up; otherwise
 * they fail at once with `unavailable`, saying why.
 */
export class Supervisor {
  private state: SourceState = "starting";
  private restarts = 0;
  private attempts = 0;
  private lastError: string | undefined;
  /** Why it last went down while up, kept once it is up again. */
  private lastDown: string | undefined;
  private upSince = 0;
  private backoff: IBackoff<unknown> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The tools of the last time the source was up: its leaves stay in the tree while it restarts. */
  private tools: Tool[] = [];
  /** How the source introduced itself the last time it came up. */
  private introduction: SourceIntroduction = { capabilities: {} };
  private readonly offDown: () => void;

  constructor(
    readonly id: string,
    private readonly router: Router,
    private readonly log: Logger,
    /** Called each time the source comes up: its tools may have changed. */
    private readonly onUp: () => void,
  ) {
    this.offDown = router.onDown?.((reason) => this.down(reason)) ?? (() => undefined);
  }

  /**
   * The first start: resolves once the source is up; rejects with its error
   * and keeps retrying. Its failure is the caller's to report: it ends the
   * broker's start, or leaves the source out until a retry succeeds.
   */
  start(): Promise<void> {
    return this.attempt(true);
  }

  status(): SourceStatus {
    const protocolVersion = this.state === "up" ? this.router.protocolVersion?.() : undefined;
    return {
      state: this.state,
      up: this.state === "up",
      restarts: this.restarts + (this.router.replacements?.() ?? 0),
      attempts: this.attempts,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      ...(this.lastDown === undefined ? {} : { lastDown: this.lastDown }),
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
    };
  }

  /** The source, for a request; `unavailable` naming its state while it is not up. */
  ready(): Router {
    if (this.state === "up") return this.router;
    const what = {
      starting: "is still starting",
      restarting: "is down and being restarted",
      failed: `failed to start (attempt ${this.attempts}) and is retried`,
    }[this.state];
    const why = this.lastError === undefined ? "" : `: ${this.lastError}`;
    throw new BrokerError("unavailable", `source ${this.id} ${what}${why}`, {
      source: this.id,
      state: this.state,
    });
  }

  /** Its tools: those it lists now while up, the last known while it is not. */
  async listTools(): Promise<Tool[]> {
    if (this.state === "up") this.tools = await this.router.listTools();
    return this.tools;
  }

  /** The source's `serverInfo`, instructions and capabilities, as of the last time it came up. */
  introduced(): SourceIntroduction {
    return this.introduction;
  }

  /** Ends what a client session holds at the source, up or not (it keeps its own book). */
  async endSession(session: string): Promise<void> {
    await this.router.endSession?.(session);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.offDown();
    await this.router.close();
  }

  private async attempt(first = false): Promise<void> {
    try {
      await this.router.start();
    } catch (err) {
      if (this.closed) return;
      this.attempts += 1;
      this.state = "failed";
      this.lastError = asBrokerError(err).message;
      if (!first)
        this.log.warn(
          { source: this.id, attempt: this.attempts, err: this.lastError },
          "source failed to start; it is retried",
        );
      this.schedule();
      throw err;
    }
    // Closed while it was starting: what the start opened is closed again.
    if (this.closed) return this.router.close();
    this.state = "up";
    this.attempts = 0;
    this.lastError = undefined;
    this.upSince = Date.now();
    this.introduction = {
      serverInfo: this.router.serverInfo?.(),
      instructions: this.router.instructions(),
      capabilities: this.router.capabilities(),
    };
    try {
      this.tools = await this.router.listTools();
      this.introduction = { ...this.introduction, toolsCacheHint: this.router.toolsCacheHint?.() };
    } catch (err) {
      this.log.warn({ source: this.id, err: asBrokerError(err).message }, "tools/list failed");
    }
    this.onUp();
  }

  private down(reason: string): void {
    if (this.closed || this.state !== "up") return;
    this.state = "restarting";
    this.lastError = reason;
    this.lastDown = `${new Date().toISOString()}: ${reason}`;
    this.log.warn({ source: this.id, reason }, "source down; it is restarted");
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    const stable = this.upSince > 0 && Date.now() - this.upSince >= STABLE_MS;
    this.backoff =
      this.backoff === undefined || stable ? BACKOFF.next() : this.backoff.next(undefined);
    this.upSince = 0;
    this.timer = setTimeout(() => {
      this.restarts += 1;
      this.attempt().catch(() => undefined);
    }, this.backoff.duration);
    this.timer.unref();
  }
}
