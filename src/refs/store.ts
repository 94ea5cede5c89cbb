// What the layers above refs/ may ask of a repository's refs, so that refs kept elsewhere than
// in files (a database, as JGit's DFS and reftable stores at Google) can stand in for
// FileRefStore (file-store.ts), git's "files" backend. An implementation must guarantee:
//   - names: every name is checked as git checks it (ref-checks.ts: checkName) before it is read
//     or written; a bad one throws GitError 'invalid-ref';
//   - symbolic refs: a ref may name another ref; reads follow the chain (at most five reads, as
//     git's SYMREF_MAXDEPTH, else 'symref-loop'), writes land at its end unless told not to;
//   - expected old values (checkOld's rule): a hex id must be the value the ref holds, null or the
//     zero id that it holds none, checked and written with no other writer in between, so of two
//     writers expecting the same old value exactly one wins and the other fails;
//   - transactions: with `atomic`, every update is checked (name, expected old value, clashes)
//     and held against other writers before any is made, and one that fails fails them all with
//     nothing written; without, each stands alone. What a crash midway leaves is the
//     implementation's to say (file-transaction.ts: some refs moved, others not, as in git);
//   - a ref and one below it (refs/heads/a and refs/heads/a/b) never exist together;
//   - listings: sorted bytewise (sort.ts), symbolic refs followed, `peeled` only when the store
//     knows it for certain (a reader peels the rest itself);
//   - reflogs: whether and where an update's message is recorded is the implementation's business.
import type { GitError } from '../core/errors.js';
import type { ReflogEntry } from './reflog.js';

/** A ref as stored, not followed. `peeled`: what an annotated tag peels to, when recorded. */
export type RawRef = { type: 'symbolic'; target: string } | { type: 'direct'; oid: string; peeled?: string };

export interface RefEntry {
  name: string;
  /** The object the ref points at, symbolic refs followed. */
  oid: string;
  /**
   * What an annotated tag peels to, when the store records it (packed-refs does); null when the
   * store knows it does not peel (git trusts packed-refs there); absent when unknown (read it).
   */
  peeled?: string | null;
  /** For a symbolic ref, the ref its chain ends at (for-each-ref's %(symref)). */
  symref?: string;
}

export interface ResolvedRef {
  oid: string;
  /** The names read, from the one asked for to the direct ref holding `oid`. */
  chain: string[];
}

export interface HeadState {
  /** The ref HEAD names (e.g. refs/heads/main), or null when HEAD is detached. */
  symref: string | null;
  /** The commit HEAD resolves to, or null on an unborn branch. */
  oid: string | null;
}

export interface ListOptions {
  /** Receives git's warnings ("ignoring broken ref ...") for the refs left out. */
  warn?: (message: string) => void;
  /** List a ref whose value is unreadable or the zero id, as the zero id (show-ref refuses it then). */
  includeBroken?: boolean;
}

export interface UpdateOptions {
  /** Expected current value: a hex id, or null / the zero id for "must not exist yet". */
  oldOid?: string | null;
  reflogMessage?: string;
  /** Write `name` itself even if it is a symbolic ref, instead of the ref it leads to. */
  noDeref?: boolean;
}

export interface DeleteOptions {
  oldOid?: string;
  noDeref?: boolean;
}

/** A ref of a store's first write (createInitial). */
export interface InitialRef {
  name: string;
  oid: string;
  /** What an annotated tag peels to. */
  peeled?: string;
}

export interface RefUpdateOutcome {
  readonly name: string;
  /** null when the update was made. */
  readonly error: GitError | null;
}

/** Ref updates gathered, then made together by commit. */
export interface RefTransaction {
  /** `oldOid`: the value the ref must hold, null for "must not exist", undefined for any. */
  update(name: string, newOid: string, oldOid?: string | null, message?: string): this;
  delete(name: string, oldOid?: string | null, message?: string): this;
  /** The number of updates gathered. */
  readonly size: number;
  /**
   * Makes the updates, all or none with `atomic`. Returns an outcome per update, in the order
   * they were added; with `atomic`, a failure throws instead, naming the update that failed.
   */
  commit(options: { atomic: boolean }): RefUpdateOutcome[];
}

export interface RefStore {
  /** The ref as stored, without following it; null if absent. */
  readRaw(name: string): RawRef | null;
  /** Follows symbolic refs from `name`; null when it, or the ref it leads to, does not exist. */
  resolve(name: string): ResolvedRef | null;
  /** Throws NotFoundError when the repository has no HEAD. */
  head(): HeadState;
  /**
   * The ref HEAD names, from HEAD's own file; null when it is detached or missing. Nothing is
   * resolved, so packed-refs is not read (a push or fetch wants the branch before it starts the
   * remote, and the refs only after).
   */
  headTarget(): string | null;
  /**
   * Refs whose names start with `prefix` (a plain string prefix under refs/), sorted. Broken
   * refs and bad names are left out with a warning, dangling symbolic refs silently.
   */
  list(prefix?: string, opts?: ListOptions): RefEntry[];
  /** Points `name` (or, unless noDeref, the ref it leads to) at `newOid`. */
  update(name: string, newOid: string, opts?: UpdateOptions): void;
  /** Deletes `name` (or, unless noDeref, the ref it leads to); false when there was nothing to delete. */
  delete(name: string, opts?: DeleteOptions): boolean;
  /**
   * Moves the direct ref `oldName` to `newName` with its reflog, which gains an entry `message`
   * (git's rename_ref: a symbolic ref is refused; a ref already at `newName` is replaced).
   */
  rename(oldName: string, newName: string, message: string): void;
  /**
   * Makes `name` a symbolic ref to `target`, even over a broken ref (so HEAD can be repaired).
   * `reflogMessage` is for the reflog of `name`, when the target resolves.
   */
  setSymbolic(name: string, target: string, opts?: { reflogMessage?: string }): void;
  /**
   * Creates `refs` (any order) in one write, in a store that holds no refs yet (a clone's), as
   * git's initial ref transaction; names must be under refs/ and given once.
   */
  createInitial(refs: readonly InitialRef[]): void;
  transaction(): RefTransaction;
  /** `name`'s reflog, oldest first; null when it has none (an empty one has no entries). */
  reflog(name: string): ReflogEntry[] | null;
}
