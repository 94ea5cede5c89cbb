// The reachability bitmap format, for a pack or a multi-pack-index. Reading: PackBitmap.open() (or
// openMultiPack()) checks the header and the checksum, decodes the four type bitmaps, and finds
// the entries (through the lookup table, or by scanning entry headers); bitmapFor() then resolves
// a commit's XOR chain into a Bitset of pack positions, which PackOrder maps to and from index
// positions. Writing: writeBitmap() lays out the file that writeBitmapFile() installs beside the
// pack. Building bitmaps and walking with them need commits and trees: packing/bitmap.
export { Bitset } from './bitset.js';
export { EwahBitmap, encodeEwah, encodeEwahXor, ewahWordCount } from './ewah.js';
export { PackOrder, type ReversibleIndex } from './pack-order.js';
export { MultiPackIndex } from './midx.js';
export {
  PackBitmap, type BitmapIndex, BITMAP_OPT_FULL_DAG, BITMAP_OPT_HASH_CACHE, BITMAP_OPT_LOOKUP_TABLE, MAX_XOR_OFFSET,
  type PackSource, type TypeBitmaps,
} from './read.js';
export { readPackTypes } from './pack-types.js';
export { writeBitmap, writeBitmapFile, typeBitmapsFrom, type BitmapEntry, type BitmapWriteInput } from './write.js';
