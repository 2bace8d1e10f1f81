/**
 * Lists again the tools of the fleet's servers, as `tools/list` gives them:
 * `npx tsx bench/tool-search/collect-fleet.ts [PACKAGE …]` installs each
 * package (the fleet's own, or those named) into a scratch folder without
 * its install scripts, starts it over stdio with placeholder credentials
 * (listing tools calls no API), and rewrites fleet.json. Servers that need
 * a real account to start are not in the fleet.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { FleetServer } from "./fleet.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const fleetFile = join(here, "fleet.json");
const current = JSON.parse(readFileSync(fleetFile, "utf8")) as FleetServer[];

/** Arguments some servers need before they list anything. */
const ARGS: Record<string, string[]> = {
  "@modelcontextprotocol/server-filesystem": [tmpdir()],
  "@modelcontextprotocol/server-postgres": ["postgresql://127.0.0.1/test"],
  "@modelcontextprotocol/server-redis": ["redis://127.0.0.1:6379"],
};
/** Placeholder credentials: servers check that they are set, not that they work, before listing. */
const PLACEHOLDERS = [
  "GITHUB_PERSONAL_ACCESS_TOKEN",
  "GITLAB_PERSONAL_ACCESS_TOKEN",
  "SLACK_BOT_TOKEN",
  "SLACK_TEAM_ID",
  "GOOGLE_MAPS_API_KEY",
  "BRAVE_API_KEY",
  "EVERART_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "NOTION_TOKEN",
  "SENTRY_ACCESS_TOKEN",
  "FIRECRAWL_API_KEY",
  "TAVILY_API_KEY",
  "EXA_API_KEY",
  "PRIVATE_APP_ACCESS_TOKEN",
  "AIRTABLE_API_KEY",
  "PINECONE_API_KEY",
  "FIGMA_API_KEY",
  "LINEAR_API_KEY",
  "CIRCLECI_TOKEN",
  "LARA_ACCESS_KEY_ID",
  "LARA_ACCESS_KEY_SECRET",
  "MAPBOX_ACCESS_TOKEN",
  "DISCORD_TOKEN",
  "CURRENTS_API_KEY",
  "PLANE_API_KEY",
  "PLANE_WORKSPACE_SLUG",
  "ATLASSIAN_SITE_NAME",
  "ATLASSIAN_USER_EMAIL",
  "ATLASSIAN_API_TOKEN",
];

async function listTools(pkg: string, scratch: string): Promise<FleetServer | undefined> {
  const dir = mkdtempSync(join(scratch, "pkg-"));
  writeFileSync(join(dir, "package.json"), '{"private": true}');
  const install = spawnSync(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", pkg],
    {
      cwd: dir,
      encoding: "utf8",
    },
  );
  if (install.status !== 0) return void console.error(`${pkg}: npm install failed`);
  const root = join(dir, "node_modules", pkg);
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    version: string;
    description?: string;
    bin?: string | Record<string, string>;
  };
  const bin =
    typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) return void console.error(`${pkg}: no program to start`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir };
  for (const name of PLACEHOLDERS) env[name] = "placeholder";
  const client = new Client({ name: "collect-fleet", version: "1" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [resolve(root, bin), ...(ARGS[pkg] ?? [])],
        env,
        cwd: dir,
        stderr: "ignore",
      }),
    );
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 30_000 });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const known = current.find((s) => s.package === pkg);
    return {
      name:
        known?.name ??
        pkg
          .split("/")
          .at(-1)!
          .replace(/^(mcp-server-|server-|mcp-)|(-mcp)$/g, ""),
      package: pkg,
      version: manifest.version,
      summary: known?.summary ?? manifest.description?.trim() ?? "",
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description ?? "",
        parameters: Object.fromEntries(
          Object.entries(t.inputSchema.properties ?? {}).map(([name, p]) => {
            const { description, enum: values } = (p ?? {}) as {
              description?: unknown;
              enum?: unknown;
            };
            return [
              name,
              {
                ...(typeof description === "string" ? { description } : {}),
                ...(Array.isArray(values)
                  ? { enum: values.filter((v) => typeof v !== "object") }
                  : {}),
              },
            ];
          }),
        ),
      })),
    };
  } catch (err) {
    console.error(`${pkg}: ${(err as Error).message}`);
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

const packages = process.argv.length > 2 ? process.argv.slice(2) : current.map((s) => s.package);
const scratch = join(tmpdir(), "mcp-broker-fleet");
mkdirSync(scratch, { recursive: true });
const listed = new Map(current.map((s) => [s.package, s]));
for (const pkg of packages) {
  const server = await listTools(pkg, scratch);
  if (!server) continue;
  listed.set(pkg, server);
  console.error(`${pkg}: ${server.tools.length} tools`);
}
writeFileSync(fleetFile, JSON.stringify([...listed.values()], null, 1) + "\n");
