/**
 * Run inside a sandbox whose network is an allowlist, as the parent of its
 * program: `node egress-relay.js SOCKET PORT -- PROGRAM ARGS…`. The sandbox
 * has a loopback of its own and nothing else; this listens on
 * 127.0.0.1:PORT there (the program's HTTP(S)_PROXY) and relays each
 * connection to the broker's egress proxy on the Unix socket SOCKET, which
 * decides where it may go. It runs the program with its own stdin and
 * stdout (the MCP connection), passes signals on, and exits as it does.
 * Plain Node.js, no imports of the broker's: it is all the sandbox sees of it.
 */
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { constants } from "node:os";

const [socketPath, port, separator, program, ...args] = process.argv.slice(2);
if (!socketPath || !port || separator !== "--" || !program) {
  process.stderr.write("usage: egress-relay SOCKET PORT -- PROGRAM [ARGS…]\n");
  process.exit(2);
}

const relay = createServer((inbound) => {
  const outbound = connect(socketPath);
  inbound.on("error", () => outbound.destroy());
  outbound.on("error", () => inbound.destroy());
  inbound.pipe(outbound).pipe(inbound);
});
relay.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(program, args, { stdio: "inherit" });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    process.on(signal, () => child.kill(signal));
  child.on("error", (err) => {
    process.stderr.write(`egress-relay: ${err.message}\n`);
    process.exit(127);
  });
  // As a shell does: a program ended by a signal exits 128 + its number, which says which.
  child.on("exit", (code, signal) =>
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)),
  );
});
