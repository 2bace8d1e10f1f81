import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressPolicy } from "../../net/address-policy.js";
import { PublicAddresses } from "../../net/public-addresses.js";
import { fetchDocument } from "./fetch-document.js";

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/hop") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/inside` });
      return res.end();
    }
    res.end("inside text");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Lets the name `localhost` through, and nothing else: the first hop of a redirect. */
const onlyLocalhostByName: AddressPolicy = {
  allows: (host) => host === "localhost",
  refusal: () => "a loopback, private or link-local address",
};
const settings = (policy: AddressPolicy) => ({
  roots: [],
  policy,
  maxBytes: 1000,
  timeoutMs: 2000,
});
const signal = () => new AbortController().signal;

describe("fetchDocument", () => {
  it("checks a redirect's target again, and refuses it when the policy does", async () => {
    const direct = await fetchDocument(
      `http://localhost:${port}/inside`,
      settings(onlyLocalhostByName),
      signal(),
    );
    expect(direct.bytes.toString()).toBe("inside text");
    await expect(
      fetchDocument(`http://localhost:${port}/hop`, settings(onlyLocalhostByName), signal()),
    ).rejects.toMatchObject({
      kind: "invalid_params",
      message: expect.stringContaining("not fetched"),
    });
  });
});

describe("PublicAddresses", () => {
  const policy = new PublicAddresses("allow");
  it.each([
    ["8.8.8.8", true],
    ["2606:4700:4700::1111", true],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["192.168.0.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["::1", false],
    ["fe80::1", false],
    ["fd12::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:8.8.8.8", true],
    ["not an address", false],
  ])("%s: %s", (address, allowed) => {
    expect(policy.allows("host", address)).toBe(allowed);
  });
});
