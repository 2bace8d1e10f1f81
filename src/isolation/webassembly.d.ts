/**
 * Node has the WebAssembly global, but TypeScript declares it only in its DOM
 * lib, which the broker does not load. What the broker uses of it:
 */
declare namespace WebAssembly {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- opaque to the host
  interface Module {}
  class Memory {
    /** Sizes in 64 KiB pages; a memory never grows past its maximum. */
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  interface Instance {
    readonly exports: Record<string, unknown>;
  }
  function compile(bytes: Uint8Array): Promise<Module>;
  function instantiate(module: Module, imports: object): Promise<Instance>;
}
