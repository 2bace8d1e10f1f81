import { z } from "zod";
import { jsonPath } from "./errors.js";

/** The parts of a JSON Schema that say where objects and their keys are. */
interface JsonSchema {
  readonly $ref?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly $defs?: Readonly<Record<string, JsonSchema>>;
  readonly const?: unknown;
  readonly required?: readonly string[];
}

/** A step of a place: a key, an item, or `ITEM` of a list or `NAME` of a map not given. */
type Step = string | number | typeof ITEM | typeof NAME;
const ITEM = Symbol("any item");
const NAME = Symbol("any name");

/** An object that takes a key, and its path below the one it was looked for from. */
interface Place {
  readonly below: readonly Step[];
  readonly taker: JsonSchema;
}

/** How many places a key is said to go in, of the nearest: the config may take it in more. */
const PLACES_NAMED = 2;
/**
 * How far, in steps up and down the config, a place may be from where the
 * key was written: a common key (`url`, `name`) is taken in far-off objects
 * that have nothing to do with the one it was written in.
 */
const MAX_STEPS = 4;

/**
 * Where in a config each key is taken, read from the config's schema along
 * the path of the object that refused it: so that a key written in the wrong
 * object (a node's `render_mode`, a source's `timeout_s`) is told where it
 * goes, nearest first, rather than only that it is unknown there.
 *
 * @example
 * new KeyPlaces(ConfigSchema).elsewhere("timeout_s", ["tree", 0, "source"])
 * // " (it goes in $.tree[0].limits or in $.tree[0].source.tool_overrides.<name>.limits)"
 */
export class KeyPlaces {
  private readonly root: JsonSchema;

  constructor(schema: z.ZodType) {
    this.root = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  }

  /**
   * The keys the object at `at` takes, as `given`: of the alternatives its
   * fixed values pick (a source's `backend`), of all where none fits.
   */
  keysAt(at: readonly PropertyKey[], given: object): string[] {
    const { objects, picked } = this.picked(at, given);
    const keys = (picked.length > 0 ? picked : objects).flatMap((o) => Object.keys(o.properties!));
    return [...new Set(keys)];
  }

  /**
   * The keys the object at `at` needs and `given` lacks, where its fixed
   * values pick one alternative (a source's `backend`); none otherwise.
   */
  lackingAt(at: readonly PropertyKey[], given: object): string[] {
    const { picked } = this.picked(at, given);
    if (picked.length !== 1) return [];
    return (picked[0]!.required ?? []).filter((key) => !Object.hasOwn(given, key));
  }

  /**
   * Where `key`, refused by the object at `path`, goes instead, in words to
   * append to the refusal: the nearest places of the objects around it
   * that take it (in steps up and down the config, at most `maxSteps`;
   * only outside the refusing object if `outside`); nothing when none does.
   */
  elsewhere(
    key: string,
    path: readonly PropertyKey[],
    { maxSteps = MAX_STEPS, outside = false }: { maxSteps?: number; outside?: boolean } = {},
  ): string {
    // A JSON document's path has no symbols.
    const at = path.map((step) => (typeof step === "symbol" ? String(step) : step));
    // The object's own kind, and its other kinds (another backend's source), are not elsewhere.
    const own = new Set(this.objectsAt(at));
    const found = new Map<string, number>();
    for (let up = 0; up <= at.length; up++) {
      const above = at.slice(0, at.length - up);
      for (const object of this.objectsAt(above))
        for (const { below, taker } of this.placesOf(key, object, [], new Set())) {
          const place = own.has(taker) ? undefined : alongside([...above, ...below], at);
          if (place === undefined) continue;
          const shared = sharedSteps(place, at);
          if (outside && shared === at.length) continue;
          const steps = at.length - shared + place.length - shared;
          const words = placeWords(place);
          if (steps <= maxSteps && !found.has(words)) found.set(words, steps);
        }
    }
    const nearest = [...found].sort((a, b) => a[1] - b[1]);
    if (nearest.length === 0) return "";
    // Named: the nearest, and the next if it is about as near.
    const named = nearest
      .slice(0, PLACES_NAMED)
      .filter(([, steps]) => steps <= nearest[0]![1] + 1)
      .map(([words]) => words);
    return ` (it goes ${named.join(" or ")})`;
  }

  /** The object schemas at `at`, and those of them whose fixed values are `given`'s. */
  private picked(
    at: readonly PropertyKey[],
    given: object,
  ): { objects: JsonSchema[]; picked: JsonSchema[] } {
    const objects = this.objectsAt(at).filter((o) => o.properties !== undefined);
    return { objects, picked: objects.filter((o) => fixedValuesFit(o, given)) };
  }

  /** The object schemas a value at `at` may be, following the path's keys and items. */
  private objectsAt(at: readonly PropertyKey[]): JsonSchema[] {
    let schemas = this.alternatives(this.root);
    for (const step of at) {
      schemas = schemas.flatMap((schema) => {
        const next =
          typeof step === "number"
            ? schema.items
            : (schema.properties?.[String(step)] ??
              (typeof schema.additionalProperties === "object"
                ? schema.additionalProperties
                : undefined));
        return next ? this.alternatives(next) : [];
      });
    }
    return schemas;
  }

  /** The objects below `schema`, within MAX_STEPS steps, that take `key`, and their paths. */
  private placesOf(key: string, schema: JsonSchema, at: Step[], seen: Set<JsonSchema>): Place[] {
    if (seen.has(schema) || at.length > MAX_STEPS) return [];
    seen.add(schema);
    const places: Place[] = Object.hasOwn(schema.properties ?? {}, key)
      ? [{ below: at, taker: schema }]
      : [];
    const below = (next: JsonSchema, step: Step) =>
      this.alternatives(next).flatMap((s) => this.placesOf(key, s, [...at, step], seen));
    for (const [name, value] of Object.entries(schema.properties ?? {}))
      places.push(...below(value, name));
    if (schema.items) places.push(...below(schema.items, ITEM));
    if (typeof schema.additionalProperties === "object")
      places.push(...below(schema.additionalProperties, NAME));
    seen.delete(schema);
    return places;
  }

  /** A schema as the plain schemas it stands for: references followed, unions spread. */
  private alternatives(schema: JsonSchema): JsonSchema[] {
    const target =
      schema.$ref === undefined
        ? schema
        : schema.$ref === "#"
          ? this.root
          : this.root.$defs?.[schema.$ref.replace(/^#\/\$defs\//, "")];
    if (target === undefined) return [];
    const options = [...(target.anyOf ?? []), ...(target.oneOf ?? []), ...(target.allOf ?? [])];
    return [target, ...options.flatMap((option) => this.alternatives(option))];
  }
}

/** Whether the fixed values of an object schema (`"backend": "stdio"`) are those `given` has. */
function fixedValuesFit(schema: JsonSchema, given: object): boolean {
  return Object.entries(schema.properties ?? {}).every(
    ([key, value]) =>
      value.const === undefined ||
      !Object.hasOwn(given, key) ||
      (given as Record<string, unknown>)[key] === value.const,
  );
}

/**
 * `place` with the items and names it shares with `at` made the config's
 * own (`tree[<n>]` beside `tree[0]` is `tree[0]`); none when it passes where
 * the config has another shape (a list where it wants an object).
 */
function alongside(place: readonly Step[], at: readonly PropertyKey[]): Step[] | undefined {
  const made = [...place];
  for (let i = 0; i < Math.min(place.length, at.length); i++) {
    const step = place[i];
    const given = at[i]!;
    if (step === given) continue;
    if (typeof given === "number") {
      if (step !== ITEM) return undefined;
      made[i] = given;
    } else if (typeof given === "string") {
      if (step === ITEM) return undefined;
      if (step !== NAME) break;
      made[i] = given;
    } else break;
  }
  return made;
}

/** How many steps from the top `place` and `at` have in common. */
function sharedSteps(place: readonly Step[], at: readonly PropertyKey[]): number {
  let shared = 0;
  while (shared < Math.min(place.length, at.length) && place[shared] === at[shared]) shared++;
  return shared;
}

/** A place as a path, `[<n>]` and `.<name>` where the config does not say which. */
function placeWords(place: readonly Step[]): string {
  if (place.length === 0) return "at the top level";
  return `in $${place.map((step) => (step === ITEM ? "[<n>]" : step === NAME ? ".<name>" : jsonPath([step]).slice(1))).join("")}`;
}
