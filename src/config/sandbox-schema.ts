import { z } from "zod";
import { ConfigPath } from "./config-folder.js";

/** What a sandboxed program may do, beyond running: its grants and its limits. */
export const SandboxSettingsSchema = z.strictObject({
  fs: z
    .strictObject({
      read: z
        .array(ConfigPath)
        .optional()
        .describe("Files and folders it may read (relative to the config's folder)."),
      write: z.array(ConfigPath).optional().describe("Files and folders it may read and write."),
    })
    .optional(),
  network: z
    .union([z.enum(["none", "all"]), z.array(z.string().min(1)).min(1)])
    .optional()
    .describe(
      '"none" (default): no network at all, loopback included; "all": the host\'s network; or a list of hosts, globs and CIDRs it may reach, through the broker\'s proxy (HTTP(S)_PROXY).',
    ),
  memory_mb: z
    .int()
    .min(16)
    .max(1 << 20)
    .optional()
    .describe("Memory of the program and everything it starts; default 512."),
  pids: z
    .int()
    .min(4)
    .max(1 << 16)
    .optional()
    .describe("Processes and threads at once; default 256."),
  cpu_s: z
    .int()
    .positive()
    .optional()
    .describe("CPU seconds a process may use; unlimited by default."),
  open_files: z
    .int()
    .min(16)
    .max(1 << 20)
    .optional()
    .describe("Files a process may have open at once; default 1024."),
});

export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;

/** A source's `sandbox`: `true` for the defaults, or its settings. */
export const SourceSandboxSchema = z
  .union([z.boolean(), SandboxSettingsSchema])
  .optional()
  .describe(
    "Run the program in a bubblewrap sandbox: a read-only view of what it needs, the grants of fs, no network unless given, limits. true: the defaults.",
  );

export type SourceSandbox = z.infer<typeof SourceSandboxSchema>;
