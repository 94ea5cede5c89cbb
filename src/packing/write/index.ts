// Writing packs. Order of operations: order.ts puts the objects in git's write order; write.ts
// finds where each is stored, plans it as a verbatim copy, a reused delta or a fresh compression,
// then writes entries (pack/entry-header-encode.ts) into stream.ts, which hashes and chunks them for a sink and
// closes the pack with its SHA-1 trailer. reuse.ts copies a bitmapped pack's entries verbatim ahead of
// the writer's own (pack-layout.ts maps pack positions to entry offsets for both).
export { writeOrder, type WriteOrder } from './order.js';
export { writePack, type PackContents, type PackWriteOptions, type PackWriteStats } from './write.js';
export { PackStream, type ChunkSink, type PackStreamOptions } from './stream.js';
export { PackLayout } from './pack-layout.js';
export { PackReuse, type PackPrefix, type ReuseOptions } from './reuse.js';
