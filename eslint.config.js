import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".tools/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Tests read arbitrary JSON off the wire and assert on it.
    files: ["test/**/*.ts", "**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // Routers built into WebAssembly components: the StarlingMonkey engine's globals.
    files: ["examples/wasm/*.js", "test/fixtures/wasm/*.js"],
    languageOptions: {
      globals: { TextDecoder: "readonly", TextEncoder: "readonly", console: "readonly" },
    },
  },
  {
    // The web console: modules the browser loads as they are.
    files: ["console/**/*.js"],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: {
      globals: { process: "readonly", setTimeout: "readonly", clearTimeout: "readonly" },
    },
  },
);
