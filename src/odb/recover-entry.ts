// Reading a packed object whose ordinary read failed (a bad zlib stream, a delta that does not
// apply), the way git's unpack_entry() goes on after such a failure: a base that cannot be read
// from this pack is looked up by its id anywhere else in the repository, and every step says what
// went wrong in git's words (`error: inflate: data stream error (...)`, `error: failed to read
// delta base object <id> at offset <n> from <pack>`). The ordinary read stays free of all this;
// this runs only after it has thrown, so only on a damaged pack.
import { CorruptError } from '../core/errors.js';
import { OID_BYTES, toHex } from '../core/oid.js';
import { ZlibError } from '../core/zlib.js';
import { OBJ_OFS_DELTA, type ObjectTypeCode, type RawObject } from '../object/type.js';
import { applyDelta } from '../pack/delta.js';
import type { StoredPack } from './object-store.js';

/** An entry's header as the recovering reader needs it. */
export interface EntryInfo {
  type: number;
  size: number;
  /** Where the entry's zlib stream starts. */
  dataOffset: number;
  /** OFS_DELTA: the base's offset; otherwise -1. */
  baseOffset: number;
  /** REF_DELTA: the base's id (a copy); otherwise null. */
  baseId: Buffer | null;
}

/** What the recovering reader asks of the object database. */
export interface RecoveryOps {
  /** The header at `offset`; throws a CorruptError when it cannot be parsed. */
  entry(pack: StoredPack, offset: number): EntryInfo;
  /** The entry's inflated data; throws a CorruptError (a ZlibError for data zlib refuses). */
  inflate(pack: StoredPack, entryOffset: number, dataOffset: number, size: number): Buffer;
  /** The object by id from any other copy (entries marked bad skipped); null when there is none. */
  readElsewhere(id: Buffer): RawObject | null;
  /** Marks the copy of `id` in `pack` bad, so lookups pass over it (git's mark_bad_packed_object). */
  markBad(pack: StoredPack, id: Buffer): void;
  /** The pack file's name as git shows it. */
  shown(pack: StoredPack): string;
  warn(text: string): void;
}

/** git's zerr_to_string(): how its `inflate:` error names zlib's status. */
function zlibStatus(errno: number): string {
  switch (errno) {
    case -4: return 'out of memory';
    case -6: return 'wrong version';
    case 2: return 'needs dictionary';
    case -3: return 'data stream error';
    case -2: return 'stream consistency error';
    default: return 'unknown error';
  }
}

/**
 * The id of the entry at `offset` of `pack`, by a scan of its index. git asks its reverse index
 * here (find_pack_revindex), but a StoredPack keeps none: only bitmap readers and repack build a
 * PackOrder, and building one (reading and checking the .rev, or sorting every offset) costs
 * the same pass over the index as this scan, which runs once per failed base of a damaged pack.
 */
function idAt(pack: StoredPack, offset: number): Buffer | null {
  const index = pack.index;
  for (let i = 0; i < index.count; i++) {
    if (index.offset(i) === offset) {
      const at = index.oidAt(i);
      return Buffer.from(index.buf.subarray(at, at + OID_BYTES));
    }
  }
  return null;
}

/**
 * The object at `offset` of `pack`, read as git's unpack_entry() reads it once something failed,
 * or null when neither this pack nor any other copy of a base it needs can give it. Only
 * CorruptErrors are taken for damage; anything else goes up.
 */
export function readRecovering(ops: RecoveryOps, pack: StoredPack, offset: number): RawObject | null {
  const inflated = (entryOffset: number, e: EntryInfo): Buffer | null => {
    try {
      return ops.inflate(pack, entryOffset, e.dataOffset, e.size);
    } catch (err) {
      if (!(err instanceof CorruptError)) throw err;
      // git prints zlib's complaint; a stream that only ends short or long it passes over in silence.
      if (err instanceof ZlibError) ops.warn(`error: inflate: ${zlibStatus(err.errno)} (${err.errno === 2 ? 'no message' : err.zlibMessage})\n`);
      return null;
    }
  };

  // Down the chain to the innermost base, as git's first phase.
  const deltas: { offset: number; entry: EntryInfo }[] = [];
  let cur = offset;
  let base: RawObject | null = null;
  for (;;) {
    let e: EntryInfo;
    try {
      e = ops.entry(pack, cur);
    } catch (err) {
      if (!(err instanceof CorruptError)) throw err;
      break;
    }
    if (e.type < 5) {
      const data = inflated(cur, e);
      if (data) base = { type: e.type as ObjectTypeCode, data };
      break;
    }
    deltas.push({ offset: cur, entry: e });
    if (deltas.length > 10000) return null;
    if (e.type === OBJ_OFS_DELTA) {
      cur = e.baseOffset;
      continue;
    }
    const pos = pack.index.find(e.baseId!);
    if (pos >= 0) {
      cur = pack.index.offset(pos);
      continue;
    }
    // A base outside this pack is read by id, as the ordinary read does.
    cur = -1;
    base = ops.readElsewhere(e.baseId!);
    break;
  }

  // Up again, applying each delta; a base this pack cannot give is looked for elsewhere.
  for (let i = deltas.length - 1; i >= 0; i--) {
    if (!base && cur >= 0) {
      const id = idAt(pack, cur);
      if (id) {
        ops.warn(`error: failed to read delta base object ${toHex(id)} at offset ${cur} from ${ops.shown(pack)}\n`);
        ops.markBad(pack, id);
        base = ops.readElsewhere(id);
      }
    }
    const { offset: at, entry } = deltas[i]!;
    cur = at;
    if (!base) continue;
    const delta = inflated(at, entry);
    if (!delta) {
      ops.warn(`error: failed to unpack compressed delta at offset ${entry.dataOffset} from ${ops.shown(pack)}\n`);
      base = null;
      continue;
    }
    try {
      base = { type: base.type, data: applyDelta(base.data, delta, 0, entry.size, 'odb', () => `${pack.file.path}: delta at offset ${at}`) };
    } catch (err) {
      if (!(err instanceof CorruptError)) throw err;
      ops.warn('error: failed to apply delta\n');
      base = null;
    }
  }
  return base;
}
