// FileRefStore's transaction: several ref updates as one unit, the way git's files backend
// commits a ref transaction:
//   1. prepare, in name order: check the name, follow symbolic refs to the ref written, make room
//      for it (file/directory clashes), take its lock (O_EXCL: of two writers exactly one wins),
//      and check the value it holds now against the expected old value, under that lock;
//   2. write each new value into its lock file;
//   3. drop the deleted refs from packed-refs (one rewrite, under its own lock), then their loose
//      files and reflogs;
//   4. append the reflog entries and rename every lock over its ref.
// Atomic: the first update that cannot be prepared releases every lock and fails them all, and
// nothing is written. Otherwise each update stands alone: one that cannot be prepared fails, the
// rest go on. Readers never see a half-written ref (a ref is a rename away from old to new), but
// as in git a crash between two renames of step 4 can leave some refs moved and others not.
// FileRefStore's update and delete are atomic transactions of one (applyOne).
import { GitError } from '../core/errors.js';
import { ZERO_HEX } from '../core/oid.js';
import { LockFile } from '../core/lock-file.js';
import type { FileRefStore } from './file-store.js';
import { removeEmptyParents } from './loose.js';
import { checkName, checkNewOid, checkOld } from './ref-checks.js';
import type { RefTransaction, RefUpdateOutcome } from './store.js';
import fs from 'node:fs';
import path from 'node:path';

export interface RefUpdate {
  readonly name: string;
  /** The new value; null deletes the ref. */
  readonly newOid: string | null;
  /**
   * The value the ref must hold when it is locked: a hex id, null for "must not exist", or
   * undefined to take whatever is there.
   */
  readonly oldOid?: string | null;
  /** Reflog message. */
  readonly message?: string;
  /** Write or delete `name` itself even when it is a symbolic ref, not the ref it leads to. */
  readonly noDeref?: boolean;
}

interface Prepared {
  update: RefUpdate;
  index: number;
  target: string;
  via: string[];
  lock: LockFile | null;
  current: string | null;
  /** Whether the ref file is itself symbolic (a noDeref update replaces it even with the same value). */
  symbolic: boolean;
  /** Whether there is a ref to delete: a value, or (noDeref) a symbolic ref that leads nowhere. */
  exists: boolean;
  error: GitError | null;
}

export class FileRefTransaction implements RefTransaction {
  private readonly updates: RefUpdate[] = [];

  constructor(private readonly store: FileRefStore) {}

  /**
   * One update made on its own, atomically (FileRefStore's update and delete): throws what stops
   * it, and returns whether the ref existed.
   */
  static applyOne(store: FileRefStore, update: RefUpdate): boolean {
    const tx = new FileRefTransaction(store);
    tx.updates.push(update);
    const [p] = tx.run(true);
    // Atomic throws what fails while preparing; a failure past that (reflog, rename) is recorded.
    if (p!.error) throw p!.error;
    return p!.exists;
  }

  update(name: string, newOid: string, oldOid?: string | null, message?: string): this {
    this.updates.push({ name, newOid: checkNewOid(name, newOid), oldOid, message });
    return this;
  }

  delete(name: string, oldOid?: string | null, message?: string): this {
    this.updates.push({ name, newOid: null, oldOid, message });
    return this;
  }

  get size(): number {
    return this.updates.length;
  }

  commit(options: { atomic: boolean }): RefUpdateOutcome[] {
    return this.run(options.atomic).map((p) => ({ name: p.update.name, error: p.error }));
  }

  private run(atomic: boolean): Prepared[] {
    const store = this.store;
    const prepared: Prepared[] = this.updates.map((update, index) => ({
      update, index, target: update.name, via: [], lock: null, current: null, symbolic: false, exists: false, error: null,
    }));
    const order = [...prepared].sort((a, b) => (a.update.name < b.update.name ? -1 : a.update.name > b.update.name ? 1 : a.index - b.index));
    const fail = (p: Prepared, e: unknown): void => {
      if (!(e instanceof GitError)) throw e;
      p.error = e;
      p.lock?.rollback();
      p.lock = null;
      if (atomic) throw e;
    };
    // A ref and another below it cannot both be written (refs/heads/a and refs/heads/a/b).
    const writing = new Set(prepared.filter((p) => p.update.newOid !== null).map((p) => p.update.name));
    try {
      for (let i = 0; i < order.length; i++) {
        const p = order[i]!;
        try {
          if (i > 0 && order[i - 1]!.update.name === p.update.name) {
            throw new GitError('refs', 'duplicate-update', `multiple updates for ref '${p.update.name}' not allowed`);
          }
          this.prepare(p, writing);
        } catch (e) {
          fail(p, e);
        }
      }
      for (const p of order) {
        if (p.error || p.update.newOid === null) continue;
        try {
          p.lock!.write(p.update.newOid + '\n');
        } catch (e) {
          fail(p, new GitError('refs', 'io', `cannot write lock for ref '${p.target}': ${(e as Error).message}`, { cause: e }));
        }
      }
      const deleting = order.filter((p) => !p.error && p.update.newOid === null && p.exists);
      if (deleting.length > 0) {
        try {
          // packed-refs first: removing the loose file alone would bring the packed value back.
          store.removePacked(deleting.map((p) => p.target));
        } catch (e) {
          for (const p of deleting) fail(p, e);
        }
      }
      for (const p of order) {
        if (p.error) continue;
        try {
          if (p.update.newOid === null) {
            const dir = store.refDir(p.target);
            if (p.exists) {
              fs.rmSync(path.join(dir, p.target), { force: true });
              fs.rmSync(path.join(dir, 'logs', p.target), { force: true });
            }
            p.lock!.rollback();
            removeEmptyParents(dir, p.target);
            removeEmptyParents(path.join(dir, 'logs'), p.target);
          } else {
            // A ref already at the value is not written (a packed ref stays packed) nor logged, as
            // in git; HEAD's entry for it is still written (git's split_head_update logs it apart).
            const unchanged = p.current === p.update.newOid && !p.symbolic;
            store.log(p.target, p.via, p.current ?? ZERO_HEX, p.update.newOid, p.update.message ?? '', unchanged);
            if (unchanged) p.lock!.rollback(); else p.lock!.commit();
          }
          p.lock = null;
        } catch (e) {
          // Past the point of no return for an atomic transaction: report, do not undo.
          if (!(e instanceof GitError)) throw e;
          p.error = e;
          p.lock?.rollback();
          p.lock = null;
        }
      }
    } finally {
      for (const p of prepared) p.lock?.rollback();
    }
    return prepared;
  }

  private prepare(p: Prepared, writing: ReadonlySet<string>): void {
    const store = this.store;
    const { name, newOid } = p.update;
    checkName(name, newOid === null ? 'delete' : 'update');
    const { target, via } = p.update.noDeref ? { target: name, via: [] } : store.derefForWrite(name);
    p.target = target;
    p.via = via;
    if (newOid !== null) {
      // Only the other one of such a pair is reported: the one above is found through its prefix.
      for (let slash = name.indexOf('/'); slash >= 0; slash = name.indexOf('/', slash + 1)) {
        const above = name.slice(0, slash);
        if (writing.has(above)) throw new GitError('refs', 'ref-conflict', `cannot lock ref '${name}': cannot process '${above}' and '${name}' at the same time`);
      }
      store.makeRoomFor(target);
    }
    p.lock = LockFile.acquire(path.join(store.refDir(target), target), `ref '${target}'`);
    const raw = store.readRaw(target);
    p.symbolic = raw?.type === 'symbolic';
    p.current = store.currentValue(target, raw);
    checkOld(target, p.current, p.update.oldOid);
    p.exists = p.current !== null || (newOid === null && raw !== null);
  }
}
