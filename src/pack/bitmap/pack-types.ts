// The object type of every entry of a pack, from entry headers alone, in one pass in pack order:
// a delta has its base's type, and an OFS_DELTA's base always comes earlier in the pack. A
// REF_DELTA's base usually does too; the few that point forward are settled after the pass.
// Nothing is inflated, so this costs one header parse per object instead of a delta-chain walk.
import { CorruptError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../../object/type.js';
import { EntryHeader } from '../entry-header.js';
import type { PackIndex } from '../idx/read.js';
import type { PackFile } from '../pack-file.js';
import { positionOfOffset, type PackOrder } from './pack-order.js';

/** Longest header: 10 bytes of type and size, then a 20-byte base id or a 10-byte base offset. */
const MAX_HEADER = 32;

/** Type code (OBJ_COMMIT..OBJ_TAG) per pack position. */
export function readPackTypes(file: PackFile, index: PackIndex, order: PackOrder): Uint8Array {
  const n = index.count;
  const types = new Uint8Array(n);
  const offsets = new Float64Array(n);
  for (let pos = 0; pos < n; pos++) offsets[pos] = index.offset(order.positionToIndex[pos]!);
  const forward = new Int32Array(n).fill(-1);
  let forwardCount = 0;
  const h = new EntryHeader();
  for (let pos = 0; pos < n; pos++) {
    const off = offsets[pos]!;
    const view = file.read(off, MAX_HEADER);
    if (!h.parse(view.buf, view.pos, view.end, off, 'pack', file.path)) {
      throw new CorruptError('pack', `${file.path}: entry header at offset ${off} is truncated`);
    }
    if (h.type < OBJ_OFS_DELTA) {
      types[pos] = h.type;
      continue;
    }
    let base: number;
    if (h.type === OBJ_OFS_DELTA) {
      base = positionOfOffset(pos, p => offsets[p]!, h.baseOffset);
      if (base < 0) throw new CorruptError('pack', `${file.path}: delta at offset ${off} names base offset ${h.baseOffset}, where no entry starts`);
    } else if (h.type === OBJ_REF_DELTA) {
      const i = index.find(view.buf, h.baseOidPos);
      if (i < 0) throw new CorruptError('pack', `${file.path}: delta at offset ${off} needs base ${toHex(view.buf, h.baseOidPos)}, which is not in the pack`);
      base = order.indexToPosition[i]!;
    } else {
      throw new CorruptError('pack', `${file.path}: entry at offset ${off} has invalid type ${h.type}`);
    }
    if (types[base]) {
      types[pos] = types[base]!;
    } else {
      forward[pos] = base;
      forwardCount++;
    }
  }
  for (let pos = 0; forwardCount > 0 && pos < n; pos++) {
    if (forward[pos]! < 0) continue;
    let b = forward[pos]!;
    for (let steps = 0; !types[b]; steps++) {
      if (forward[b]! < 0 || steps > n) throw new CorruptError('pack', `${file.path}: delta at offset ${offsets[pos]} has a base chain that loops`);
      b = forward[b]!;
    }
    types[pos] = types[b]!;
  }
  return types;
}
