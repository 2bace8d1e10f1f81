/**
 * The least a call that asks Redis can cost: a round trip on a bare socket,
 * with no client library around it. `PING` is sent as RESP's inline command
 * and its answer only counted, not read: the benchmark's floor, never a
 * client for the broker.
 */
import { connect, type Socket } from "node:net";

const PONG = "+PONG\r\n";

export class BareRedis {
  /** Callers waiting for a `PONG`, in the order their `PING`s went out. */
  private readonly waiting: (() => void)[] = [];
  private received = 0;

  private constructor(
    private readonly socket: Socket,
    private readonly writes: Socket,
  ) {
    socket.on("data", (chunk: Buffer) => {
      this.received += chunk.length;
      while (this.received >= PONG.length) {
        this.received -= PONG.length;
        this.waiting.shift()?.();
      }
    });
    // What the writes answer is drained unread: a handed-off write is not waited for.
    writes.resume();
  }

  /** Two connections to the Redis at `port`: one for round trips, one for writes. */
  static async open(port: number, host = "127.0.0.1"): Promise<BareRedis> {
    const opened = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(port, host, () => resolve(socket.setNoDelay(true)));
        socket.once("error", reject);
      });
    return new BareRedis(await opened(), await opened());
  }

  /** One `PING`, resolved when its answer has arrived. */
  roundTrip(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.socket.write("PING\r\n");
    });
  }

  /** A `SET` with a TTL, written and not waited for, as a keyed call's result is handed off. */
  handOff(key: string, value: string): void {
    const args = ["SET", key, value, "PX", "60000"];
    this.writes.write(
      `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`,
    );
  }

  close(): void {
    this.socket.destroy();
    this.writes.destroy();
  }
}
