/** Tree paths: absolute, `/`-separated, no empty, `.` or `..` segments, no trailing slash. */

export function splitPath(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

/** The canonical form of a path, or null when it is not a usable path. */
export function normalizePath(path: string): string | null {
  if (!path.startsWith("/")) return null;
  const segments = splitPath(path);
  if (segments.some((s) => s === "." || s === "..")) return null;
  return "/" + segments.join("/");
}

export function joinPath(parent: string, child: string): string {
  return parent === "/" ? `/${child}` : `${parent}/${child}`;
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** Whether `path` is `node` itself or lies under it. */
export function isWithin(path: string, node: string): boolean {
  return path === node || path.startsWith(node === "/" ? "/" : `${node}/`);
}

export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
