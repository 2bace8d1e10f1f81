/** What a transpile leaves beside jco's files, for the broker to read back. */
export interface TranspileManifest {
  /** The WIT interfaces the component imports, such as `wasi:filesystem/types`. */
  imports: string[];
  /** The WIT interfaces and functions it exports. */
  exports: string[];
  /** jco's core module files, compiled by the broker and shared by every instance. */
  coreModules: string[];
}

export const MANIFEST = "manifest.json";
