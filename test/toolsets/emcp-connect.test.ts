import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Broker } from "../../src/broker/broker.js";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { silent } from "../helpers/broker.js";

/** A server that takes connections and never says a word, as a wedged or firewalled one does. */
let mute: Server;
const held: Socket[] = [];
let port = 0;
beforeAll(async () => {
  mute = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
  port = (mute.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => mute.close(resolve));
});

const cms = (database: string) =>
  parseConfig(
    JSON.stringify({ tree: [{ path: "/cms", source: { backend: "emcp", database } }] }),
    "test",
    ConfigSchema,
    {},
  );

describe("an Evolution CMS database server that never answers", () => {
  it.concurrent.each(["postgres", "mysql"])(
    "%s: the start fails after the connect timeout, it does not wait for ever",
    async (engine) => {
      const started = Date.now();
      await expect(
        Broker.start(cms(`${engine}://user:pw@127.0.0.1:${port}/evo`), { log: silent }),
      ).rejects.toThrow(/\/cms: source \/cms cannot read the Evolution CMS database: .*time/i);
      expect(Date.now() - started).toBeLessThan(20_000);
    },
    30_000,
  );
});
