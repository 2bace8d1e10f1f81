/** The jobs the calculator sends its processes (math-process.ts). */

export type MathJob =
  | { readonly op: "calculate"; readonly expression: string }
  | { readonly op: "convert"; readonly value: number; readonly from: string; readonly to: string };

/** The most elements a matrix result may have: a larger one is refused before it is formatted. */
export const MAX_RESULT_ELEMENTS = 10_000;
