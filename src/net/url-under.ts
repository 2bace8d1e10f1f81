/** `path` under `base` as a folder: `urlUnder("http://h:7860/sd", "sdapi/v1/txt2img")` keeps `/sd/`. */
export function urlUnder(base: string, path: string): URL {
  return new URL(path, base.endsWith("/") ? base : `${base}/`);
}
