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
 * How long a request for a source that is not up waits for it to come up:
 * a backend that crashed is usually back in well under a second, and a call
 * refused meanwhile is one a model retries blind. A request whose source's
 * next start is further off is answered at once.
 */
const WAIT_FOR_START_MS = 5_000;

/**
 * Keeps one source running, whatever its kind: starts it, and restarts it with
 * capped, jittered backoff whenever a start fails or the source reports itself
 * down, until it is closed. Its state is the one `/healthz`, `meta_desc` and
 * `/metrics` show. Requests reach the source only while it is up; otherwise
 * they wait for a start that is near, or fail with `unavailable`, saying why.
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
  /** When the next start begins (ms since the epoch), while one is scheduled. */
  private nextStartAt = 0;
  private starting = true;
  /** Requests waiting for the start under way or next: told when it has come out. */
  private readonly waiting = new Set<() => void>();
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

  /**
   * The source, for a request: at once while it is up. While it is not, the
   * request waits for the start under way, or the next one if it begins
   * within 5 s, and gets the source if that start brings it up within 5 s;
   * it fails with `unavailable`, naming the state and why, if the start
   * fails, if the next is further off, if the start takes longer, or if the
   * source is stopped. `signal` (the request's deadline and cancellation)
   * ends the wait sooner.
   */
  ready(signal: AbortSignal): Router | Promise<Router> {
    if (this.state === "up") return this.router;
    if (this.closed || (!this.starting && this.nextStartAt - Date.now() > WAIT_FOR_START_MS))
      throw this.unavailable();
    signal.throwIfAborted();
    return new Promise<Router>((resolve, reject) => {
      const end = (outcome: () => void) => {
        clearTimeout(timer);
        this.waiting.delete(settle);
        signal.removeEventListener("abort", stop);
        outcome();
      };
      const settle = () =>
        end(() =>
          this.state === "up" && !this.closed ? resolve(this.router) : reject(this.unavailable()),
        );
      const stop = () => end(() => reject(signal.reason));
      const timer = setTimeout(() => end(() => reject(this.unavailable())), WAIT_FOR_START_MS);
      this.waiting.add(settle);
      signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** Why the source is not up, in the words a refused request gets; nothing while it is. */
  notUp(): string | undefined {
    return this.state === "up" && !this.closed ? undefined : this.unavailable().message;
  }

  private unavailable(): BrokerError {
    const state = this.state;
    // Up, a request is refused only once the source is closed.
    if (this.closed || state === "up")
      return new BrokerError("unavailable", `source ${this.id} was stopped`, {
        source: this.id,
        state,
      });
    const what = {
      starting: "is still starting",
      restarting: "is down and being restarted",
      failed: `failed to start (attempt ${this.attempts}) and is retried`,
    }[state];
    const why = this.lastError === undefined ? "" : `: ${this.lastError}`;
    const retryAfter = this.starting ? 0 : Math.ceil((this.nextStartAt - Date.now()) / 1000);
    const next =
      retryAfter > 0
        ? ` (next attempt in ${retryAfter} s)`
        : this.starting && state !== "starting"
          ? " (a start is under way)"
          : "";
    return new BrokerError("unavailable", `source ${this.id} ${what}${why}${next}`, {
      source: this.id,
      state,
      ...(retryAfter > 0 ? { retry_after_s: retryAfter } : {}),
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
    this.startCameOut();
    this.offDown();
    await this.router.close();
  }

  private async attempt(first = false): Promise<void> {
    this.starting = true;
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
      this.startCameOut();
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
    this.startCameOut();
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

  /** Ends the start under way, telling the requests that wait for it. */
  private startCameOut(): void {
    this.starting = false;
    for (const settle of this.waiting) settle();
    this.waiting.clear();
  }

  private schedule(): void {
    if (this.closed) return;
    const stable = this.upSince > 0 && Date.now() - this.upSince >= STABLE_MS;
    this.backoff =
      this.backoff === undefined || stable ? BACKOFF.next() : this.backoff.next(undefined);
    this.upSince = 0;
    this.nextStartAt = Date.now() + this.backoff.duration;
    this.timer = setTimeout(() => {
      this.restarts += 1;
      this.attempt().catch(() => undefined);
    }, this.backoff.duration);
    this.timer.unref();
  }
}
