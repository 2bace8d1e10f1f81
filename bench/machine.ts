import { cpus } from "node:os";

/** The line every benchmark report starts with: where and when it was measured. */
export function machineLine(): string {
  return `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`;
}
