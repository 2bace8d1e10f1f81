import { z } from "zod";

/** The name of an environment variable, as a config may list it for a source. */
export const ENV_NAME = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");
