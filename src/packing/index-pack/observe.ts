// What index-pack's first pass tells the world as it parses, and where the stream's bytes go
// (go-git's packfile Observer, JGit's PackParser on*() hooks). The parser is the same whatever
// receives the pack: a local pack file, a quarantine, or a caller that only wants to look.

/**
 * Hooks called as the pack is parsed; a hook that throws stops the parse with its error (a
 * receive-pack refusing a pack with too many objects does so from onHeader, before any entry).
 */
export interface PackObserver {
  /** The pack header has been read: its version and the object count it declares. */
  onHeader?(version: number, count: number): void;
  /**
   * Entry `i` has been parsed: it lies at [offset, end) of the pack, with its stored type (deltas
   * as OFS/REF_DELTA) and the size its header declares. Whole objects' ids are in the table.
   */
  onEntry?(i: number, offset: number, end: number, type: number, size: number): void;
  /** The trailer matched the pack's SHA-1. */
  onTrailer?(packHash: Buffer): void;
}

/**
 * Where a pack stream's bytes land. The second pass reads entries back by offset, on resolver
 * threads that open `path` themselves, so a sink ends in a file; what else it does with the bytes
 * (mirror them, count them, hash them) is its own.
 */
export interface PackSink {
  /** The file that holds the pack as written so far. */
  readonly path: string;
  /** The parsed bytes, in order, each byte once. */
  write(bytes: Uint8Array): void;
  /** Bytes at an offset: --fix-thin appends bases and rewrites the header's count and the trailer. */
  writeAt(bytes: Uint8Array, offset: number): void;
}
