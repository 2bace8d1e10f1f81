#!/usr/bin/env node
/**
 * The program's entry: it checks the Node.js version before anything else is
 * loaded, since an older Node fails inside a dependency with no word of why.
 */
import module from "node:module";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(`mcp-broker needs Node.js 22 or newer; this is ${process.version}\n`);
  process.exit(1);
}
// V8's compiled code of the program's modules, kept between runs (in the system's temporary
// folder, or NODE_COMPILE_CACHE): a start compiles what changed, not all of it again.
module.enableCompileCache?.();
await import("./cli.js");
