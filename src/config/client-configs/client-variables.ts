import { homedir } from "node:os";
import { basename, dirname } from "node:path";

/** `${env:NAME}`, `${input:ID}` and the editors' own `${workspaceFolder}`-like names. */
const EDITOR_VARIABLE =
  /\$\{(env|input):([^}]*)\}|\$\{(workspaceFolder|workspaceFolderBasename|userHome|pathSeparator|\/)\}/g;
/** A whole value that is `$NAME`, as Gemini CLI writes a variable in `env`. */
const BARE_VARIABLE = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Rewrites the variables of clients' configs into the broker's own
 * `${NAME}`, which the config's loading then reads from the environment:
 * `${env:NAME}` (VS Code, Cursor, Windsurf) is `${NAME}`; `${workspaceFolder}`
 * and `${userHome}` are the project's folder and the home folder. VS Code's
 * `${input:ID}` prompts a person in the editor, which the broker cannot: it
 * is read from the environment variable `MCP_INPUT_<ID>` instead, and a
 * warning says so once per input.
 */
export class ClientVariables {
  private readonly inputsSaid = new Set<string>();

  constructor(
    /** The file's folder; a dot-folder's (`.vscode`, `.cursor`) parent is the project. */
    private readonly file: string,
    private readonly warnings: string[],
    private readonly inputDescriptions: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** A string value with the editors' variables rewritten. */
  value(text: string): string {
    return text.replace(
      EDITOR_VARIABLE,
      (match, scope: string | undefined, name: string | undefined, own: string | undefined) => {
        if (scope === "env") return `\${${name}}`;
        if (scope === "input") return `\${${this.input(name!)}}`;
        switch (own) {
          case "workspaceFolder":
            return this.project();
          case "workspaceFolderBasename":
            return basename(this.project());
          case "userHome":
            return homedir();
          default:
            return "/";
        }
      },
    );
  }

  /** An `env` value: also `$NAME` alone, as Gemini CLI writes it. */
  envValue(text: string): string {
    const bare = BARE_VARIABLE.exec(text);
    return bare ? `\${${bare[1]}}` : this.value(text);
  }

  private input(id: string): string {
    const variable = `MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
    if (!this.inputsSaid.has(id)) {
      this.inputsSaid.add(id);
      const about = this.inputDescriptions.get(id);
      this.warnings.push(
        `input "${id}"${about ? ` (${about})` : ""}: inputs prompted for in the editor are not supported; set the environment variable ${variable} instead`,
      );
    }
    return variable;
  }

  private project(): string {
    const folder = dirname(this.file);
    return basename(folder).startsWith(".") ? dirname(folder) : folder;
  }
}
