// What a repository's configuration lets receive-pack do, read as git's receive_pack_config reads
// it. Two defaults differ from git's, on purpose: every received object is fsck'd unless
// receive.fsckObjects (or transfer.fsckObjects) says false, and push options are advertised
// unless receive.advertisePushOptions says false.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { FSCK_LEVELS, HARDENED_LEVELS, type FsckMsgId, type FsckOptions, type FsckOverrides } from '../../object/fsck.js';

/** receive.denyCurrentBranch and receive.denyDeleteCurrent: unset means refuse, with git's long explanation. */
export type DenyAction = 'unconfigured' | 'ignore' | 'warn' | 'refuse' | 'updateInstead';

export interface ReceivePackPolicy {
  denyDeletes: boolean;
  denyNonFastForwards: boolean;
  denyCurrentBranch: DenyAction;
  denyDeleteCurrent: DenyAction;
  /** null: no fsck (receive.fsckObjects=false). */
  fsck: FsckOptions | null;
  /** Objects whose fsck problems are ignored (receive.fsck.skipList, else fsck.skipList), as hex ids. */
  skipList: Set<string>;
  /** 0: unlimited. */
  maxInputSize: number;
  /** Packs with fewer objects become loose objects (receive.unpackLimit, transfer.unpackLimit; git's 100). */
  unpackLimit: number;
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
  const fsckOn = bool('receive', 'fsckobjects') ?? bool('transfer', 'fsckobjects') ?? true;
  const levels: FsckOverrides = { ...HARDENED_LEVELS };
  for (const e of config.list()) {
    if (e.section !== 'receive' || e.subsection !== 'fsck' || e.key === 'skiplist') continue;
    const id = Object.keys(FSCK_LEVELS).find((k) => k.toLowerCase() === e.key) as FsckMsgId | undefined;
    const level = (e.value ?? '').toLowerCase();
    if (!id) continue; // git: "skipping unknown msg id"
    if (level !== 'error' && level !== 'warn' && level !== 'ignore') {
      throw new GitError('config', 'bad-value', `invalid value for 'receive.fsck.${id}': '${e.value ?? ''}' (expected error, warn or ignore)`);
    }
    levels[id] = level;
  }
  const skipListFile = config.get('receive', 'fsck', 'skiplist') ?? config.get('fsck', null, 'skiplist');
  const hooksPath = config.get('core', null, 'hookspath') ?? null;
  return {
    denyDeletes: bool('receive', 'denydeletes') ?? false,
    denyNonFastForwards: bool('receive', 'denynonfastforwards') ?? false,
    denyCurrentBranch: denyAction(config, 'denycurrentbranch'),
    denyDeleteCurrent: denyAction(config, 'denydeletecurrent'),
    fsck: fsckOn ? { strict: true, levels } : null,
    skipList: skipListFile !== undefined ? readSkipList(path.resolve(gitDir, skipListFile)) : new Set(),
    maxInputSize: int('receive', 'maxinputsize') ?? 0,
    unpackLimit: int('receive', 'unpacklimit') ?? int('transfer', 'unpacklimit') ?? 100,
    advertiseAtomic: bool('receive', 'advertiseatomic') ?? true,
    advertisePushOptions: bool('receive', 'advertisepushoptions') ?? true,
    ofsDelta: bool('repack', 'usedeltabaseoffset') ?? true,
    keepAlive: int('receive', 'keepalive') ?? 5,
    hideRefs: [...config.getAll('transfer', null, 'hiderefs'), ...config.getAll('receive', null, 'hiderefs')],
    autoGc: bool('receive', 'autogc') ?? true,
    gcAuto: int('gc', 'auto') ?? 6700,
    gcAutoPackLimit: int('gc', 'autopacklimit') ?? 50,
    writeBitmaps: bool('repack', 'writebitmaps') ?? bool('pack', 'writebitmaps') ?? bare,
    hooksPath,
  };
}

/** git's fsck skip list: one id per line, '#' comments and blank lines allowed. */
function readSkipList(file: string): Set<string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new GitError('config', 'bad-value', `could not open skip list: ${file}: ${(e as Error).message}`, { cause: e });
  }
  const ids = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    if (!/^[0-9a-fA-F]{40}$/.test(line)) throw new GitError('config', 'bad-value', `${file}: invalid object name: ${line}`);
    ids.add(line.toLowerCase());
  }
  return ids;
}

/**
 * git's ref_is_hidden: the last matching pattern decides; `!` un-hides; `^` matches the full
 * name (namespaces are not supported, so both names are the same here). A pattern matches a ref
 * equal to it or below it.
 */
export function isHiddenRef(name: string, patterns: readonly string[]): boolean {
  for (let i = patterns.length - 1; i >= 0; i--) {
    let p = patterns[i]!;
    const negated = p.startsWith('!');
    if (negated) p = p.slice(1);
    if (p.startsWith('^')) p = p.slice(1);
    if (p.endsWith('/')) p = p.slice(0, -1);
    if (name === p || (name.startsWith(p) && name[p.length] === '/')) return !negated;
  }
  return false;
}
