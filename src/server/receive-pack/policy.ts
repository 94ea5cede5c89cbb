// What a repository's configuration lets receive-pack do, read as git's receive_pack_config reads
// it. Two defaults differ from git's, on purpose: every received object is fsck'd unless
// receive.fsckObjects (or transfer.fsckObjects) says false (config/transfer-fsck.ts), and push
// options are advertised unless receive.advertisePushOptions says false.
import type { Config } from '../../config/index.js';
import { looseCompression } from '../../config/loose-compression.js';
import { transferFsck } from '../../config/transfer-fsck.js';
import { HARDENED_LEVELS, type FsckOptions } from '../../object/fsck.js';
import { hideRefsConfig } from '../hidden-refs.js';

export { isHiddenRef } from '../hidden-refs.js';

/** receive.denyCurrentBranch and receive.denyDeleteCurrent: unset means refuse, with git's long explanation. */
export type DenyAction = 'unconfigured' | 'ignore' | 'warn' | 'refuse' | 'updateInstead';

export interface ReceivePackPolicy {
  denyDeletes: boolean;
  denyNonFastForwards: boolean;
  denyCurrentBranch: DenyAction;
  denyDeleteCurrent: DenyAction;
  /** null: no fsck (receive.fsckObjects=false); with receive.fsck.* levels and the skip list. */
  fsck: FsckOptions | null;
  /** 0: unlimited. */
  maxInputSize: number;
  /** Packs with fewer objects become loose objects (receive.unpackLimit, transfer.unpackLimit; git's 100). */
  unpackLimit: number;
  /** zlib's level for those loose objects: core.loosecompression, else core.compression, else git's 1. */
  looseCompression: number;
  advertiseAtomic: boolean;
  advertisePushOptions: boolean;
  /** repack.useDeltaBaseOffset: advertise ofs-delta. */
  ofsDelta: boolean;
  /** Seconds of silence after which a keep-alive goes out on the side-band; 0 never. */
  keepAlive: number;
  /** receive.hideRefs and transfer.hideRefs, in order. */
  hideRefs: string[];
  autoGc: boolean;
  /** gc.auto: loose objects that make a repack worth it; 0 turns automatic gc off. */
  gcAuto: number;
  /** gc.autoPackLimit: packs (without .keep) that make a repack worth it; 0 turns that test off. */
  gcAutoPackLimit: number;
  /** Write a bitmap when repacking (repack.writeBitmaps; on for bare repositories, as git). */
  writeBitmaps: boolean;
  /** core.hooksPath, if set. */
  hooksPath: string | null;
}

function denyAction(config: Config, key: string): DenyAction {
  const value = config.get('receive', null, key);
  if (value === undefined) return 'unconfigured';
  const v = value.toLowerCase();
  if (v === 'ignore') return 'ignore';
  if (v === 'warn') return 'warn';
  if (v === 'refuse') return 'refuse';
  if (v === 'updateinstead') return 'updateInstead';
  return config.getBool('receive', null, key) ? 'refuse' : 'ignore';
}

export function readReceivePolicy(config: Config, gitDir: string, bare: boolean): ReceivePackPolicy {
  const bool = (section: string, key: string) => config.getBool(section, null, key);
  const int = (section: string, key: string) => config.getInt(section, null, key);
  const hooksPath = config.get('core', null, 'hookspath') ?? null;
  return {
    denyDeletes: bool('receive', 'denydeletes') ?? false,
    denyNonFastForwards: bool('receive', 'denynonfastforwards') ?? false,
    denyCurrentBranch: denyAction(config, 'denycurrentbranch'),
    denyDeleteCurrent: denyAction(config, 'denydeletecurrent'),
    fsck: transferFsck(config, 'receive', gitDir, HARDENED_LEVELS),
    maxInputSize: int('receive', 'maxinputsize') ?? 0,
    unpackLimit: int('receive', 'unpacklimit') ?? int('transfer', 'unpacklimit') ?? 100,
    looseCompression: looseCompression(config),
    advertiseAtomic: bool('receive', 'advertiseatomic') ?? true,
    advertisePushOptions: bool('receive', 'advertisepushoptions') ?? true,
    ofsDelta: bool('repack', 'usedeltabaseoffset') ?? true,
    keepAlive: int('receive', 'keepalive') ?? 5,
    hideRefs: hideRefsConfig(config, 'receive'),
    autoGc: bool('receive', 'autogc') ?? true,
    gcAuto: int('gc', 'auto') ?? 6700,
    gcAutoPackLimit: int('gc', 'autopacklimit') ?? 50,
    writeBitmaps: bool('repack', 'writebitmaps') ?? bool('pack', 'writebitmaps') ?? bare,
    hooksPath,
  };
}
