/** Messages between the calculator and its worker thread. */

export type MathRequest =
  | { readonly id: number; readonly op: "calculate"; readonly expression: string }
  | {
      readonly id: number;
      readonly op: "convert";
      readonly value: number;
      readonly from: string;
      readonly to: string;
    };

export type MathReply =
  | { readonly id: number; readonly ok: true; readonly data: Record<string, unknown> }
  | {
      readonly id: number;
      readonly ok: false;
      readonly message: string;
      /** 1-based character of a syntax error, when mathjs names one. */
      readonly position?: number;
    };
