import type {
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { SessionBook, type OpenSession } from "./session-book.js";

const books: SessionBook[] = [];
afterEach(() => books.splice(0).forEach((b) => b.stop()));

function book(max: number, maxPerPrincipal?: number): SessionBook {
  const made = new SessionBook(
    { max, idleTimeoutMs: 60_000, maxPerPrincipal },
    pino({ level: "silent" }),
  );
  books.push(made);
  return made;
}

let n = 0;
/** A session of `owner` in `into`, with `inFlight` requests unanswered; `closed` once it is closed. */
function open(into: SessionBook, owner: string, inFlight = 0) {
  const state = { closed: false };
  const session: OpenSession = {
    id: `s${n++}`,
    endpoint: "/mcp",
    owner,
    authenticated: () => undefined,
    server: {
      close: async () => {
        state.closed = true;
      },
    } as unknown as Server,
    transport: {} as WebStandardStreamableHTTPServerTransport,
    lastUsed: Date.now(),
    inFlight,
  };
  into.add(session, { onmessage: undefined, send: async () => undefined } as never);
  return { session, state };
}

describe("SessionBook", () => {
  it("a token at its own bound gives up its own least recently used idle session, no one else's", () => {
    const b = book(100, 3);
    const admin = open(b, "admin");
    const attacker = Array.from({ length: 3 }, () => open(b, "attacker"));
    expect(b.makeRoom("attacker")).toBe("room");
    expect(attacker[0]!.state.closed).toBe(true);
    expect(admin.state.closed).toBe(false);
  });

  it("a token at its own bound with every session busy is refused; others are not", () => {
    const b = book(100, 2);
    open(b, "attacker", 1);
    open(b, "attacker", 1);
    expect(b.makeRoom("attacker")).toBe("principal-full");
    expect(b.makeRoom("admin")).toBe("room");
  });

  it("when full, room comes from the token holding the most, even from a busy one over its share", () => {
    const b = book(10, 10);
    const admin = open(b, "admin");
    const attacker = Array.from({ length: 9 }, () => open(b, "attacker", 1));
    expect(b.makeRoom("newcomer")).toBe("room");
    expect(admin.state.closed).toBe(false);
    expect(attacker.filter((s) => s.state.closed)).toHaveLength(1);
  });

  it("when full and no one is over their share with all sessions busy, it is refused", () => {
    const b = book(4, 4);
    for (const owner of ["a", "b", "c", "d"]) open(b, owner, 1);
    expect(b.makeRoom("e")).toBe("full");
    expect(b.makeRoom("a")).toBe("full");
  });

  it("the default bound of a token is a quarter of all sessions", () => {
    expect(book(1000).maxPerPrincipal).toBe(250);
    expect(book(2).maxPerPrincipal).toBe(1);
  });
});
