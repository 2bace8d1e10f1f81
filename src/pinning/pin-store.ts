import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { digestOf } from "../contract/digest.js";
import type { Logger } from "../contract/log.js";
import { stateFolder } from "../contract/state-folder.js";
import { openStore } from "../state/open-store.js";
import type { StateStore } from "../state/store.js";

/** Where pins are kept, and whether the broker opened that store for them alone. */
export interface PinStore {
  readonly store: StateStore;
  readonly own: boolean;
}

/**
 * The store of pinned definitions: the one `pinning.store` names; else the
 * broker's state store when it outlives the process (a rug pull comes with
 * a restart or an update, so pins must outlive it too); else a SQLite file
 * of the config's folder under the user's state folder; else (a config not
 * read from a file) the state store, for as long as the process runs.
 */
export async function openPinStore(
  settings: { store: string | undefined; configFolder: string | undefined },
  state: StateStore,
  log: Logger,
): Promise<PinStore> {
  if (settings.store !== undefined)
    return { store: await openStore(settings.store, log), own: true };
  if (state.kind !== "memory" || settings.configFolder === undefined)
    return { store: state, own: false };
  const file = join(stateFolder("pins"), `${digestOf(settings.configFolder).slice(0, 16)}.db`);
  try {
    mkdirSync(dirname(file), { recursive: true });
    return { store: await openStore(`sqlite:${file}`, log), own: true };
  } catch (err) {
    // The user's state folder is not always theirs to write (a service's user, a shared HOME).
    throw new Error(
      `cannot keep pinned tool definitions in ${file}: ${(err as Error).message}. Make it writable, set XDG_STATE_HOME to a folder that is, or name a store with pinning.store`,
      { cause: err },
    );
  }
}
