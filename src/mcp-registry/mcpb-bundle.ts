import { createHash, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, normalize, sep } from "node:path";
import { unzipSync } from "fflate";
import type { AddressPolicy } from "../net/address-policy.js";
import { HostAllowlist } from "../net/host-allowlist.js";
import { guardedRequest } from "../net/guarded-request.js";
import { PublicAddresses } from "../net/public-addresses.js";
import type { Package } from "./server-json.js";

const MAX_BUNDLE_BYTES = 200 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 120_000;

/** A bundle unpacked, and how its manifest says to start it. */
export interface InstalledBundle {
  readonly folder: string;
  readonly command: string[];
  readonly env: Record<string, string>;
}

interface Manifest {
  server?: { mcp_config?: { command?: unknown; args?: unknown; env?: unknown } };
  user_config?: Record<string, { default?: unknown; required?: unknown }>;
}

/**
 * An MCPB bundle of the registry: downloaded from its URL (that host, and
 * public addresses a release host redirects to), refused unless its SHA-256
 * is the one the registry gave, unpacked once into `cache/<sha256>/` (no
 * entry outside that folder, at most 512 MiB in all), and started as its
 * `manifest.json` says, `${__dirname}` being that folder and
 * `${user_config.NAME}` the value given as `--arg NAME=…` or its default.
 */
export async function installBundle(
  pkg: Package,
  cache: string,
  args: Readonly<Record<string, string>>,
): Promise<InstalledBundle> {
  const sha256 = pkg.fileSha256?.toLowerCase();
  if (!sha256 || !/^[a-f0-9]{64}$/.test(sha256))
    throw new Error(`refused: the bundle ${pkg.identifier} has no fileSha256 to check it by`);
  if (!/^https?:\/\//.test(pkg.identifier))
    throw new Error(`refused: the bundle's identifier "${pkg.identifier}" is not an http(s) URL`);
  const folder = join(cache, sha256);
  if (!existsSync(join(folder, "manifest.json")))
    await unpack(await download(pkg.identifier, sha256), folder);
  const manifest = JSON.parse(await readFile(join(folder, "manifest.json"), "utf8")) as Manifest;
  const config = manifest.server?.mcp_config;
  if (typeof config?.command !== "string")
    throw new Error(
      `the bundle ${pkg.identifier} says no command to start it (server.mcp_config.command)`,
    );
  const missing: string[] = [];
  const fill = (text: string) =>
    text.replace(
      /\$\{(__dirname|user_config\.([A-Za-z0-9_-]+))\}/g,
      (whole, _all, key: string | undefined) => {
        if (key === undefined) return folder;
        const given = args[key] ?? manifest.user_config?.[key]?.default;
        if (given === undefined) {
          if (manifest.user_config?.[key]?.required === true) missing.push(`--arg ${key}=VALUE`);
          return "";
        }
        return String(given);
      },
    );
  const command = [
    config.command,
    ...(Array.isArray(config.args) ? config.args.map(String) : []),
  ].map(fill);
  const env = Object.fromEntries(
    Object.entries((config.env ?? {}) as Record<string, unknown>).map(([k, v]) => [
      k,
      fill(String(v)),
    ]),
  );
  if (missing.length > 0) throw new Error(`the bundle needs values: give ${missing.join(" ")}`);
  return { folder, command, env };
}

async function download(url: string, sha256: string): Promise<Uint8Array> {
  const named = HostAllowlist.ofUrls([url], "the bundle's host");
  const anywherePublic = new PublicAddresses("a release host");
  // Its own host, and where a release host redirects (public addresses only): the hash vouches for it.
  const policy: AddressPolicy = {
    allows: (host, address) => named.allows(host, address) || anywherePublic.allows(host, address),
    refusal: () => `neither the bundle's host nor a public address`,
  };
  const answer = await guardedRequest(url, {
    method: "GET",
    policy,
    maxBytes: MAX_BUNDLE_BYTES,
    signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
  });
  if (answer.status !== 200)
    throw new Error(`the bundle ${url} could not be downloaded (HTTP ${answer.status})`);
  const got = createHash("sha256").update(answer.body).digest();
  if (!timingSafeEqual(got, Buffer.from(sha256, "hex")))
    throw new Error(
      `refused: the bundle ${url} is not the one the registry names (SHA-256 ${got.toString("hex")}, expected ${sha256})`,
    );
  return answer.body;
}

async function unpack(zip: Uint8Array, folder: string): Promise<void> {
  let total = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        total += file.originalSize;
        if (total > MAX_UNPACKED_BYTES)
          throw new Error(`it unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
        return true;
      },
    });
  } catch (err) {
    throw new Error(`the bundle cannot be unpacked: ${(err as Error).message}`, { cause: err });
  }
  const partial = `${folder}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  try {
    for (const [name, data] of Object.entries(entries)) {
      const target = normalize(join(partial, name));
      // An entry may not climb out of the bundle's folder ("zip slip").
      if (!target.startsWith(partial + sep) || name.includes("\0"))
        throw new Error(`refused: the bundle holds an entry outside its folder ("${name}")`);
      if (name.endsWith("/")) continue;
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, data);
    }
    if (!existsSync(join(partial, "manifest.json")))
      throw new Error("the bundle has no manifest.json");
    await mkdir(dirname(folder), { recursive: true });
    await rename(partial, folder);
  } catch (err) {
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
}
