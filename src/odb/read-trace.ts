/**
 * How the object of the last read() was stored, for a reader that can use it: the walk skips the
 * tree entries a delta copied from a tree it has already listed (walk/tree-layouts.ts). Valid
 * until the next read; a database and its alternates share one.
 */
export class ReadTrace {
  /** The pack's number (StoredPack.number), or 0 when the object did not come from a pack. */
  pack = 0;
  /** Where the object's entry starts in that pack. */
  offset = 0;
  /**
   * The object is the result of applying delta[deltaStart..deltaEnd) (instructions only, sizes
   * already read) to the object at this offset of the same pack, of baseSize bytes; -1 when it was
   * stored whole, came from the cache, or its base lives elsewhere.
   */
  baseOffset = -1;
  baseSize = 0;
  delta: Uint8Array = new Uint8Array(0);
  deltaStart = 0;
  deltaEnd = 0;
}
