import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { debianTool } from "../helpers/debian-tool.js";

/** Debian's Chromium (installed in CI where missing), or undefined: the browser tests then skip. */
export const chromiumPath = debianTool("chromium", "chromium");

/** Where the browser tests keep their screenshots (not committed; CI may keep them). */
export const ARTIFACTS = join(process.cwd(), "test-artifacts", "console");

export async function launch(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
}

const axeSource = (createRequire(import.meta.url)("axe-core") as { source: string }).source;

/**
 * Runs axe-core on the page as it is and fails on serious or critical
 * violations, naming them. axe goes in through the DevTools protocol, which
 * the console's Content-Security-Policy does not govern; the page's own
 * scripts stay under it.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`,
      );
  });
  expect(violations).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
