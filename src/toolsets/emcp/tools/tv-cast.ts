import { BrokerError } from "../../../contract/errors.js";

/** How a TV value is read as a number: `UNSIGNED`, `SIGNED` or `DECIMAL(p,s)`. */
export type TvCast =
  | { readonly type: "UNSIGNED" | "SIGNED" }
  | { readonly type: "DECIMAL"; readonly precision: number; readonly scale: number };

/** For the input schema: the forms `parseCast` reads. */
export const CAST_PATTERN =
  "^(UNSIGNED|SIGNED|DECIMAL\\(\\s*[0-9]{1,2}\\s*,\\s*[0-9]{1,2}\\s*\\))$";
const decimal = /^DECIMAL\(\s*([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*\)$/;

/** A cast as written in the call, checked; `where` names the argument in errors. */
export function parseCast(text: unknown, where: string): TvCast | undefined {
  if (text === undefined) return undefined;
  if (text === "UNSIGNED" || text === "SIGNED") return { type: text };
  const parts = typeof text === "string" ? decimal.exec(text) : null;
  if (parts) {
    const precision = Number(parts[1]);
    const scale = Number(parts[2]);
    if (precision >= 1 && precision <= 65 && scale <= 30 && scale <= precision)
      return { type: "DECIMAL", precision, scale };
  }
  throw new BrokerError(
    "invalid_params",
    `${where}: cast ${JSON.stringify(text)} is not one of UNSIGNED, SIGNED, DECIMAL(p,s) with 1 ≤ p ≤ 65, 0 ≤ s ≤ 30, s ≤ p`,
  );
}

/** The value a cast comparison compares with: a number, or a string that is a plain numeral. */
export function castOperand(value: unknown, cast: TvCast, where: string): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(value)) return Number(value);
  throw new BrokerError(
    "invalid_params",
    `${where}: value ${JSON.stringify(value)} is not a number, which cast ${cast.type} compares with`,
  );
}
