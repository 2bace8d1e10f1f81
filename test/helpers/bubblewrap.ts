import { debianTool } from "./debian-tool.js";

/**
 * bubblewrap for the sandbox's tests: its program (installed in CI when
 * missing), and why a test is skipped without it ("" when it is there).
 */
export function bubblewrap(): { bwrap: string | undefined; why: string } {
  const bwrap = debianTool("bwrap", "bubblewrap");
  return {
    bwrap,
    why: bwrap
      ? ""
      : "skipped: bubblewrap is not installed (apt-get install -y bubblewrap; CI installs it)",
  };
}
