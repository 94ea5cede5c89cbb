// FileRefStore, store.ts's RefStore kept as git's "files" backend keeps refs: loose files under
// the git directory (in a linked work tree: HEAD and the other per-work-tree refs under its own,
// the rest and packed-refs under the common one, core/common-dir.ts) take precedence over
// packed-refs; symbolic refs are followed at most five reads deep; every write goes through a
// `.lock` file taken with O_EXCL and renamed into place, and checks the expected old value while
// holding that lock. Reflogs go to logs/ as core.logAllRefUpdates says.
import fs from 'node:fs';
import path from 'node:path';
import { Config } from '../config/index.js';
import { isPerWorktreeRef, readNamedCommonDir } from '../core/common-dir.js';
import { CorruptError, GitError, NotFoundError } from '../core/errors.js';
import { isHexOid, ZERO_HEX } from '../core/oid.js';
import { checkRefFormat, checkRefPath } from './check-ref-format.js';
import { LockFile } from '../core/lock-file.js';
import { FileRefTransaction } from './file-transaction.js';
import { isMissing, listLooseRefNames, readLooseRef } from './loose.js';
import { formatPackedRefs, PackedRefsCache, parsePackedRefs, removeRecords, type PackedRefs } from './packed.js';
import { checkName, checkNewOid } from './ref-checks.js';
import { appendReflog, committerIdent, readReflog, shouldLog, type LogAllRefUpdates, type ReflogEntry } from './reflog.js';
import { compareRefNames } from './sort.js';
import type {
  DeleteOptions, HeadState, InitialRef, ListOptions, RawRef, RefEntry, RefStore, RefTransaction, ResolvedRef, UpdateOptions,
} from './store.js';

/** git's SYMREF_MAXDEPTH: reads allowed while following one name, symbolic refs included. */
const SYMREF_MAXDEPTH = 5;

export interface FileRefStoreOptions {
  /** core.logAllRefUpdates; by default only refs whose reflog already exists are logged. */
  logAllRefUpdates?: LogAllRefUpdates;
  /** What gitDir's `commondir` file names (else gitDir), when the repository has read it. */
  namedCommonDir?: string;
  /** "Name <email> <seconds> <tz>" for reflog entries. */
  ident?: () => string;
  /** Receives git's warnings ("ignoring broken ref ...") when list() skips a ref. */
  warn?: (message: string) => void;
}

export class FileRefStore implements RefStore {
  readonly gitDir: string;
  /** Where the shared refs and packed-refs are: what gitDir's `commondir` file names, else gitDir. */
  readonly commonDir: string;
  private readonly packed: PackedRefsCache;
  private readonly logMode: LogAllRefUpdates;
  private readonly ident: () => string;
  private readonly warn: (message: string) => void;

  constructor(gitDir: string, opts: FileRefStoreOptions = {}) {
    this.gitDir = gitDir;
    // Never $GIT_COMMON_DIR: git's files backend reads the `commondir` file alone
    // (files_ref_store_init calls get_common_dir_noenv), though objects and config honour it.
    this.commonDir = opts.namedCommonDir ?? readNamedCommonDir(gitDir);
    this.packed = new PackedRefsCache(path.join(this.commonDir, 'packed-refs'));
    this.logMode = opts.logAllRefUpdates ?? false;
    this.ident = opts.ident ?? (() => committerIdent());
    this.warn = opts.warn ?? (() => {});
  }

  /**
   * A store configured from the repository's config (core.logAllRefUpdates, user.name/email):
   * `config` when the caller has it loaded already, global files included, else read now.
   */
  static open(gitDir: string, opts: FileRefStoreOptions & { env?: NodeJS.ProcessEnv; config?: Config } = {}): FileRefStore {
    const env = opts.env ?? process.env;
    const config = opts.config ?? Config.loadSync(gitDir, { global: true, env, namedCommonDir: opts.namedCommonDir });
    const setting = config.get('core', null, 'logallrefupdates');
    const logAllRefUpdates: LogAllRefUpdates = setting === undefined
      ? !(config.getBool('core', null, 'bare') ?? false)
      : setting.toLowerCase() === 'always' || config.getBool('core', null, 'logallrefupdates')!;
    const user = { name: config.get('user', null, 'name'), email: config.get('user', null, 'email') };
    return new FileRefStore(gitDir, { logAllRefUpdates, ident: () => committerIdent(env, user), ...opts });
  }

  /** The ref as stored (loose file first, then packed-refs), without following it; null if absent. */
  readRaw(name: string): RawRef | null {
    checkName(name, 'read');
    return this.readUnchecked(name);
  }

  /** Follows symbolic refs from `name`; null when it, or the ref it leads to, does not exist. */
  resolve(name: string): ResolvedRef | null {
    checkName(name, 'read');
    return this.follow(name, SYMREF_MAXDEPTH);
  }

  headTarget(): string | null {
    const raw = this.readUnchecked('HEAD');
    return raw?.type === 'symbolic' ? raw.target : null;
  }

  head(): HeadState {
    const raw = this.readUnchecked('HEAD');
    if (!raw) throw new NotFoundError('refs', `${path.join(this.refDir('HEAD'), 'HEAD')} does not exist`);
    if (raw.type === 'direct') return { symref: null, oid: raw.oid };
    return { symref: raw.target, oid: this.follow('HEAD', SYMREF_MAXDEPTH)?.oid ?? null };
  }

  /**
   * Refs whose names start with `prefix` (a plain string prefix under refs/), sorted bytewise as
   * git show-ref and for-each-ref list them. Skips what `git for-each-ref` skips: broken ref files,
   * bad names and the zero id with a warning, dangling symbolic refs silently.
   */
  list(prefix = 'refs/', opts: ListOptions = {}): RefEntry[] {
    const warn = opts.warn ?? this.warn;
    const broken = opts.includeBroken === true;
    if (!prefix.startsWith('refs/')) {
      if (!'refs/'.startsWith(prefix)) return [];
      prefix = 'refs/';
    }
    const loose = listLooseRefNames((dir) => this.refDir(dir), prefix.slice(0, prefix.lastIndexOf('/') + 1))
      .filter((n) => n.startsWith(prefix));
    const packed = this.packed.get().refs.filter((r) => r.name.startsWith(prefix));
    const out: RefEntry[] = [];
    let i = 0, j = 0;
    while (i < loose.length || j < packed.length) {
      const order = i === loose.length ? 1 : j === packed.length ? -1 : compareRefNames(loose[i]!, packed[j]!.name);
      if (order > 0) {
        const p = packed[j++]!;
        if (p.badName) warn(`ignoring ref with broken name ${p.name}`);
        else out.push(p.peeled === undefined ? { name: p.name, oid: p.oid } : { name: p.name, oid: p.oid, peeled: p.peeled });
        continue;
      }
      // A loose ref hides the packed one of the same name, even when it is broken.
      if (order === 0) j++;
      const entry = this.listLoose(loose[i++]!, warn, broken);
      if (entry) out.push(entry);
    }
    return out;
  }

  /** Points `name` (or, unless noDeref, the ref it leads to) at `newOid`: a transaction of one. */
  update(name: string, newOid: string, opts: UpdateOptions = {}): void {
    FileRefTransaction.applyOne(this, {
      name, newOid: checkNewOid(name, newOid), oldOid: opts.oldOid, message: opts.reflogMessage, noDeref: opts.noDeref,
    });
  }

  /**
   * Makes `name` a symbolic ref to `target`. Unlike update, it overwrites a broken ref file, so
   * it can repair HEAD. A reflog entry is written only with a message and a resolvable target.
   */
  setSymbolic(name: string, target: string, opts: { reflogMessage?: string } = {}): void {
    checkName(name, 'update');
    const reason = checkRefPath(target);
    if (reason !== null) throw new GitError('refs', 'invalid-ref', `refusing to point '${name}' at '${target}': it ${reason}`);
    this.makeRoomFor(name);
    const lock = LockFile.acquire(path.join(this.refDir(name), name), `ref '${name}'`);
    try {
      let old: string | null = null;
      try {
        old = this.currentValue(name);
      } catch (e) {
        if (!(e instanceof CorruptError)) throw e;
      }
      lock.write(`ref: ${target}\n`);
      const resolved = opts.reflogMessage === undefined ? null : this.follow(target, SYMREF_MAXDEPTH);
      if (resolved && shouldLog(this.refDir(name), name, this.logMode)) {
        appendReflog(this.refDir(name), name, old ?? ZERO_HEX, resolved.oid, this.ident(), opts.reflogMessage!);
      }
      lock.commit();
    } finally {
      lock.rollback();
    }
  }

  /**
   * Deletes `name` (or, unless noDeref, the ref it leads to) from packed-refs and as a loose file,
   * with its reflog: a transaction of one. Returns false when there was nothing to delete.
   */
  delete(name: string, opts: DeleteOptions = {}): boolean {
    return FileRefTransaction.applyOne(this, { name, newOid: null, oldOid: opts.oldOid, noDeref: opts.noDeref });
  }

  /**
   * git's files_copy_or_rename_ref: the reflog is moved aside (logs/refs/.tmp-renamed-log), the old
   * ref deleted (from packed-refs too) and any ref at the new name, the reflog moved to the new
   * name, and the new ref written as a loose file whose reflog gains "<id> <id> <ident>\t<message>".
   */
  rename(oldName: string, newName: string, message: string): void {
    checkName(oldName, 'delete');
    checkName(newName, 'update');
    const raw = this.readUnchecked(oldName);
    if (!raw) throw new GitError('refs', 'not-found', `refname ${oldName} not found`);
    if (raw.type === 'symbolic') throw new GitError('refs', 'symbolic-ref', `refname ${oldName} is a symbolic ref, renaming it is not supported`);
    const logOf = (name: string) => path.join(this.refDir(name), 'logs', name);
    const parked = path.join(this.commonDir, 'logs', 'refs/.tmp-renamed-log');
    let log = false;
    try {
      if (fs.lstatSync(logOf(oldName)).isSymbolicLink()) throw new GitError('refs', 'io', `reflog for ${oldName} is a symlink`);
      log = true;
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    if (log) fs.renameSync(logOf(oldName), parked);
    this.delete(oldName, { oldOid: raw.oid, noDeref: true });
    if (this.readUnchecked(newName)) this.delete(newName, { noDeref: true });
    if (log) {
      fs.mkdirSync(path.dirname(logOf(newName)), { recursive: true });
      fs.renameSync(parked, logOf(newName));
    }
    this.makeRoomFor(newName);
    const lock = LockFile.acquire(path.join(this.refDir(newName), newName), `ref '${newName}'`);
    try {
      lock.write(`${raw.oid}\n`);
      if (shouldLog(this.refDir(newName), newName, this.logMode)) appendReflog(this.refDir(newName), newName, raw.oid, raw.oid, this.ident(), message);
      lock.commit();
    } finally {
      lock.rollback();
    }
  }

  /**
   * Writes packed-refs with exactly `refs` (any order), atomically, as git's clone does. The header
   * promises "fully-peeled": give `peeled` for every annotated tag. Loose refs still take precedence.
   */
  createInitial(refs: readonly InitialRef[]): void {
    const sorted = refs.map((r) => {
      const reason = r.name.startsWith('refs/') ? checkRefFormat(r.name) : "is not under 'refs/'";
      if (reason !== null) throw new GitError('refs', 'invalid-ref', `cannot pack ref '${r.name}': the name ${reason}`);
      if (!isHexOid(r.oid) || (r.peeled !== undefined && !isHexOid(r.peeled))) {
        throw new GitError('refs', 'invalid-oid', `cannot pack ref '${r.name}': '${r.oid}'${r.peeled ? ` ^'${r.peeled}'` : ''} is not a 40-hex object id`);
      }
      const oid = r.oid.toLowerCase();
      return r.peeled === undefined ? { name: r.name, oid } : { name: r.name, oid, peeled: r.peeled.toLowerCase() };
    }).sort((a, b) => compareRefNames(a.name, b.name));
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.name === sorted[i - 1]!.name) throw new GitError('refs', 'invalid-ref', `cannot pack ref '${sorted[i]!.name}' twice`);
    }
    const lock = LockFile.acquire(this.packed.file, 'packed-refs');
    try {
      lock.write(formatPackedRefs(sorted));
      lock.commit();
    } finally {
      lock.rollback();
      this.packed.invalidate();
    }
  }

  transaction(): RefTransaction {
    return new FileRefTransaction(this);
  }

  private readUnchecked(name: string): RawRef | null {
    const loose = readLooseRef(this.refDir(name), name);
    if (loose) return loose;
    return packedValue(this.packed.get(), name);
  }

  private follow(name: string, depth: number): ResolvedRef | null {
    const chain = [name];
    let current = name;
    for (let reads = 0; reads < depth; reads++) {
      const raw = this.readUnchecked(current);
      if (!raw) return null;
      if (raw.type === 'direct') return { oid: raw.oid, chain };
      current = symrefTarget(this.refDir(current), current, raw.target);
      chain.push(current);
    }
    throw new GitError('refs', 'symref-loop', `too many levels of symbolic refs: ${chain.join(' -> ')}`);
  }

  /** With includeBroken, a loose ref whose content is garbage or the zero id lists as the zero id (git show-ref then refuses it). */
  private listLoose(name: string, warn: (message: string) => void, includeBroken = false): RefEntry | null {
    if (checkRefFormat(name, { allowOneLevel: true }) !== null) {
      warn(`ignoring ref with broken name ${name}`);
      return null;
    }
    let raw: RawRef | null;
    try {
      raw = readLooseRef(this.refDir(name), name);
    } catch (e) {
      if (!(e instanceof CorruptError)) throw e;
      if (includeBroken) return { name, oid: ZERO_HEX };
      warn(`ignoring broken ref ${name}`);
      return null;
    }
    if (!raw) return null;
    if (raw.type === 'direct') {
      if (raw.oid !== ZERO_HEX || includeBroken) return { name, oid: raw.oid };
      warn(`ignoring broken ref ${name}`);
      return null;
    }
    // Dangling or broken symbolic refs are left out without a word, as git does.
    try {
      const target = symrefTarget(this.refDir(name), name, raw.target);
      const resolved = this.follow(target, SYMREF_MAXDEPTH - 1);
      if (!resolved || resolved.oid === ZERO_HEX) return null;
      return { name, oid: resolved.oid, symref: resolved.chain[resolved.chain.length - 1]! };
    } catch (e) {
      if (e instanceof GitError) return null;
      throw e;
    }
  }

  reflog(name: string): ReflogEntry[] | null {
    return readReflog(this.refDir(name), name);
  }

  // The steps of a write, for FileRefTransaction; not part of RefStore.

  /**
   * The directory ref `name` (or a directory of refs, ending in '/') and its reflog, logs/<name>,
   * are under: the git directory for a per-work-tree ref, the common one for the rest (the same
   * directory outside linked work trees), as git's files_ref_path and files_reflog_path.
   */
  refDir(name: string): string {
    return isPerWorktreeRef(name) ? this.gitDir : this.commonDir;
  }

  /** Where a write to `name` lands: the end of its symbolic ref chain, which may not exist yet. */
  derefForWrite(name: string): { target: string; via: string[] } {
    const via: string[] = [];
    let current = name;
    for (let reads = 0; reads < SYMREF_MAXDEPTH; reads++) {
      const raw = this.readUnchecked(current);
      if (!raw || raw.type === 'direct') return { target: current, via };
      via.push(current);
      current = symrefTarget(this.refDir(current), current, raw.target);
    }
    throw new GitError('refs', 'symref-loop', `too many levels of symbolic refs: ${[...via, current].join(' -> ')}`);
  }

  /**
   * The id `name` holds now (a symbolic ref's target's), null if none; throws if broken. `raw`:
   * the ref as just read, when the caller has read it.
   */
  currentValue(name: string, raw: RawRef | null = this.readUnchecked(name)): string | null {
    if (!raw) return null;
    if (raw.type === 'direct') return raw.oid;
    return this.follow(name, SYMREF_MAXDEPTH)?.oid ?? null;
  }

  /**
   * Refuses names that clash with existing refs as file and directory (refs/heads/a against
   * refs/heads/a/b), and clears empty directories left where the ref file must go.
   */
  makeRoomFor(name: string): void {
    const packed = this.packed.get();
    const conflict = (existing: string) =>
      new GitError('refs', 'ref-conflict', `cannot lock ref '${name}': '${existing}' exists; cannot create '${name}'`);
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (packed.byName.has(prefix)) throw conflict(prefix);
      try {
        if (!fs.lstatSync(path.join(this.refDir(prefix), prefix)).isDirectory()) throw conflict(prefix);
      } catch (e) {
        if (e instanceof GitError) throw e;
        if (!isMissing(e)) throw e;
        break;
      }
    }
    const below = packed.refs.find((r) => r.name.startsWith(name + '/'));
    if (below) throw conflict(below.name);
    const dir = path.join(this.refDir(name), name);
    let isDir = false;
    try {
      isDir = fs.lstatSync(dir).isDirectory();
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    if (!isDir) return;
    const inside = listLooseRefNames((d) => this.refDir(d), name + '/');
    if (inside.length > 0) throw conflict(inside[0]!);
    removeEmptyDirs(dir, () => conflict(`${name}/...`));
  }

  /**
   * Appends the reflog entries an update of `target` (reached through `via`) gets; of an update
   * that leaves `target` as it was, only HEAD's.
   */
  log(target: string, via: string[], oldOid: string, newOid: string, message: string, unchanged = false): void {
    const names = [target, ...via];
    // Moving the branch HEAD is on moves HEAD too, so HEAD's reflog hears of it (git's
    // split_head_update).
    if (!names.includes('HEAD')) {
      try {
        const head = readLooseRef(this.refDir('HEAD'), 'HEAD');
        if (head?.type === 'symbolic' && head.target === target) names.push('HEAD');
      } catch (e) {
        if (!(e instanceof CorruptError)) throw e;
      }
    }
    for (const n of names) {
      if (unchanged && n !== 'HEAD') continue;
      if (shouldLog(this.refDir(n), n, this.logMode)) appendReflog(this.refDir(n), n, oldOid, newOid, this.ident(), message);
    }
  }

  /** Drops `names` from packed-refs under its lock (those it does not hold are skipped). */
  removePacked(names: readonly string[]): void {
    const file = this.packed.file;
    const packed = this.packed.get().byName;
    if (!names.some((n) => packed.has(n))) return;
    const lock = LockFile.acquire(file, 'packed-refs');
    try {
      // Re-read under the lock: the cached parse may predate another writer.
      let data: Buffer;
      try {
        data = fs.readFileSync(file);
      } catch (e) {
        if (isMissing(e)) return;
        throw e;
      }
      const dropping = new Set(names);
      const drop = parsePackedRefs(data, file).refs.filter((r) => dropping.has(r.name));
      if (drop.length === 0) return;
      lock.write(removeRecords(data, drop));
      lock.commit();
    } finally {
      lock.rollback();
      this.packed.invalidate();
    }
  }
}

function packedValue(packed: PackedRefs, name: string): RawRef | null {
  const p = packed.byName.get(name);
  if (!p || p.badName) return null;
  return p.peeled ? { type: 'direct', oid: p.oid, peeled: p.peeled } : { type: 'direct', oid: p.oid };
}

function symrefTarget(gitDir: string, from: string, target: string): string {
  const reason = checkRefPath(target);
  if (reason !== null) {
    throw new CorruptError('refs', `symbolic ref ${path.join(gitDir, from)} points to '${target}', which ${reason}`);
  }
  return target;
}

/** rmdir bottom-up, so a file that appears meanwhile makes it stop instead of being deleted. */
function removeEmptyDirs(dir: string, onNotEmpty: () => Error): void {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!d.isDirectory()) throw onNotEmpty();
    removeEmptyDirs(path.join(dir, d.name), onNotEmpty);
  }
  try {
    fs.rmdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTEMPTY') throw onNotEmpty();
    throw e;
  }
}
