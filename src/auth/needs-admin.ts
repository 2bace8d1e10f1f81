import { allows } from "./scopes.js";
import { BrokerError } from "../contract/errors.js";
import type { Principal } from "../contract/router.js";

/** Refuses a principal without an `admin` scope on `path`, saying what it may not read. */
export function needsAdmin(principal: Principal, path: string, what: string, hint = ""): void {
  if (!allows(principal, "admin", path)) {
    throw new BrokerError(
      "forbidden",
      `token "${principal.id}" may not read ${what}: it needs an admin scope${hint}`,
      { path, token: principal.id, scope: `admin:${path}` },
    );
  }
}
