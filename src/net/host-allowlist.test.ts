import { describe, expect, it } from "vitest";
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { guardedLookup } from "./address-policy.js";
import { DEFAULT_ALLOWED_HOSTS, HostAllowlist } from "./host-allowlist.js";

const lookup = (list: HostAllowlist, host: string) =>
  new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
    guardedLookup(list)(host, { all: false }, (err, address) => resolve({ err, address })),
  );

describe("HostAllowlist", () => {
  const loopback = new HostAllowlist(DEFAULT_ALLOWED_HOSTS);

  it("allows loopback by default, in every spelling, and nothing else", async () => {
    for (const url of [
      "http://127.0.0.1:8080/",
      "http://localhost/",
      "http://[::1]:9/",
      "http://127.9.9.9/",
    ]) {
      expect(await loopback.problemWith(new URL(url)), url).toBeUndefined();
    }
    expect(loopback.allowsAddress("::ffff:127.0.0.1")).toBe(true);
    for (const address of [
      "10.0.0.1",
      "169.254.169.254",
      "192.168.1.1",
      "::ffff:10.0.0.1",
      "fe80::1",
    ]) {
      expect(loopback.allowsAddress(address), address).toBe(false);
    }
    expect(
      await loopback.problemWith(new URL("http://169.254.169.254/latest/meta-data")),
    ).toContain(
      "169.254.169.254 is outside registry.allowed_hosts (localhost, 127.0.0.0/8, ::1/128)",
    );
  });

  it("takes networks, addresses, name globs and *", () => {
    const list = new HostAllowlist(["10.0.0.0/8", "192.168.1.7", "*.svc.internal"]);
    expect(list.allows("a", "10.200.3.4")).toBe(true);
    expect(list.allows("a", "192.168.1.7")).toBe(true);
    expect(list.allows("a", "192.168.1.8")).toBe(false);
    expect(list.allowsName("search.svc.internal")).toBe(true);
    expect(list.allowsName("svc.internal.evil.com")).toBe(false);
    expect(new HostAllowlist(["*"]).allows("anything", "8.8.8.8")).toBe(true);
  });

  it("checks the addresses a name resolves to when the connection is made", async () => {
    const only2 = new HostAllowlist(["127.0.0.2/32"]);
    const refused = await lookup(only2, "localhost");
    expect(refused.err?.code).toBe("EHOSTNOTALLOWED");
    expect(refused.err?.message).toContain("localhost resolves to");
    const allowed = await lookup(new HostAllowlist(["127.0.0.0/8"]), "localhost");
    expect(allowed).toEqual({ err: null, address: "127.0.0.1" });
  });

  it("names entries that look like addresses but are not", () => {
    expect(
      HostAllowlist.problems(["10.0.0.0/33", "300.1.1.1", "10.0.0.0/8", "::1", "example.com"]),
    ).toEqual([
      '"10.0.0.0/33" is neither an address nor a network in CIDR notation',
      '"300.1.1.1" is neither an address nor a network in CIDR notation',
    ]);
  });

  it("allows exactly the loopback addresses by default (property)", () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        expect(loopback.allowsAddress(address)).toBe(address.startsWith("127."));
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const ip = ipaddr.process(address);
        const isLoopback =
          ip.kind() === "ipv4"
            ? ip.toString().startsWith("127.")
            : ip.toNormalizedString() === "0:0:0:0:0:0:0:1";
        expect(loopback.allowsAddress(address)).toBe(isLoopback);
      }),
    );
  });
});
