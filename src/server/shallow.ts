// Shallow requests, as upload-pack.c answers them: the client's own shallow commits, then a new
// boundary from `deepen <n>` (get_shallow_commits: depth counted from the wants, or with
// deepen-relative from the client's current boundary), or from deepen-since / deepen-not (the
// commits rev-list would list; those with a parent outside the list become the boundary).
// Client boundaries that now have history behind them are "unshallowed": their parents become
// wants. Last, every boundary commit is cut from its parents so the walk stops there.
//
// A repository that is itself shallow has its own boundary (Session.shallowHere, parentless in
// every walk). As in git, its commits join any new boundary they are met on, --unshallow cannot
// go past them, and v2 tells every client about those the wants reach (send_shallow_info's
// deepen(INFINITE_DEPTH)), so that a clone of a shallow clone is shallow at the same place.
import { GitError } from '../core/errors.js';
import { deepens, INFINITE_DEPTH, type HistoryRequest } from '../protocol/index.js';
import { OBJ_COMMIT } from '../object/type.js';
import { allRefs } from './refs.js';
import { CLIENT_SHALLOW, clientError, NOT_SHALLOW, SHALLOW, type Session } from './session.js';

export type ShallowRequest = Pick<HistoryRequest, 'shallows' | 'shape'>;

export interface ShallowOutcome {
  /** A deepen was asked: the shallow/unshallow lines go out (v0 then flushes). */
  readonly deepened: boolean;
  readonly shallows: string[];
  readonly unshallows: string[];
  /** Parents of unshallowed commits: their history is sent too. */
  readonly extraWants: number[];
  /** Unshallowed commits themselves: the client has them, so they bound the walk. */
  readonly extraEdges: number[];
}

export function wantsShallowInfo(req: ShallowRequest): boolean {
  return deepens(req.shape) || req.shallows.length > 0;
}

/**
 * Whether a v2 fetch response carries a shallow-info section: the client asked for it, or this
 * repository is shallow (v0 lists that boundary in its advertisement instead).
 */
export function sendsShallowInfo(s: Session, req: ShallowRequest): boolean {
  return wantsShallowInfo(req) || s.shallowHere.length > 0;
}

export interface ShallowAnswerOptions {
  /**
   * Also report this repository's own boundary that the wants reach when the client did not
   * deepen: v2's shallow-info (a v0 advertisement lists the boundary instead).
   */
  readonly ownBoundary?: boolean;
}

/** Answers the request's shallow lines and deepening. */
export function processShallow(s: Session, wants: readonly number[], req: ShallowRequest,
  options: ShallowAnswerOptions = {}): ShallowOutcome {
  const clientShallows: number[] = [];
  for (const hex of req.shallows) {
    const idx = s.index(hex);
    if (!s.exists(idx)) continue;
    if (s.typeOf(idx) !== OBJ_COMMIT) throw clientError(`invalid shallow object ${hex}`);
    if (!s.has(idx, CLIENT_SHALLOW)) {
      s.mark(idx, CLIENT_SHALLOW);
      clientShallows.push(idx);
    }
  }
  const out = { deepened: false, shallows: [] as string[], unshallows: [] as string[], extraWants: [] as number[], extraEdges: [] as number[] };
  const boundary: number[] = [];
  const send = (result: number[]) => {
    for (const c of result) {
      if (s.has(c, CLIENT_SHALLOW | NOT_SHALLOW)) continue;
      out.shallows.push(s.hex(c));
      boundary.push(c);
    }
  };
  const shape = req.shape;
  if (shape.depth > 0) {
    out.deepened = true;
    if (shape.depth === INFINITE_DEPTH && s.shallowHere.length === 0) {
      for (const c of clientShallows) s.mark(c, NOT_SHALLOW);
    } else if (shape.deepenRelative) {
      send(shallowCommits(s, reachableFromRefs(s, clientShallows), shape.depth + 1));
    } else {
      send(shallowCommits(s, wants, shape.depth));
    }
  } else if (shape.deepenSince !== null || shape.deepenNot.length > 0) {
    out.deepened = true;
    send(shallowByRevList(s, wants, shape.deepenSince, shape.deepenNot));
  } else if (options.ownBoundary && s.shallowHere.length > 0) {
    // The client's own boundary counts as shallow here too (git registers it first).
    for (const c of clientShallows) s.cutParents(c);
    send(shallowCommits(s, wants, INFINITE_DEPTH, c => s.has(c, CLIENT_SHALLOW)));
  }
  for (const c of clientShallows) {
    if (!s.has(c, NOT_SHALLOW)) continue;
    out.unshallows.push(s.hex(c));
    for (const p of s.parents(c)) out.extraWants.push(p);
    out.extraEdges.push(c);
  }
  for (const c of boundary) s.cutParents(c);
  for (const c of clientShallows) s.cutParents(c);
  return out;
}

/**
 * get_shallow_commits: depth-first from each head, remembering the smallest depth each commit was
 * reached at; a commit at `depth` becomes shallow, those above it are marked not shallow. So does
 * a commit of this repository's own boundary, or one `cut` says is a boundary already.
 */
function shallowCommits(s: Session, heads: readonly number[], depth: number, cut: (c: number) => boolean = () => false): number[] {
  const result: number[] = [];
  const depthOf = new Map<number, number>();
  const stack: number[] = [];
  let h = 0;
  let commit = -1, cur = 0;
  while (commit >= 0 || h < heads.length || stack.length) {
    if (commit < 0) {
      if (h < heads.length) {
        const c = s.peel(heads[h++]!);
        if (c < 0 || s.typeOf(c) !== OBJ_COMMIT) continue;
        commit = c;
        depthOf.set(commit, 0);
        cur = 0;
      } else {
        commit = stack.pop()!;
        cur = depthOf.get(commit)!;
      }
    }
    cur++;
    if ((depth !== INFINITE_DEPTH && cur >= depth) || s.isShallowHere(commit) || cut(commit)) {
      result.push(commit);
      s.mark(commit, SHALLOW);
      commit = -1;
      continue;
    }
    s.mark(commit, NOT_SHALLOW);
    const parents = s.parents(commit);
    commit = -1;
    for (let i = 0; i < parents.length; i++) {
      const p = parents[i]!;
      const known = depthOf.get(p);
      if (known !== undefined && cur >= known) continue;
      depthOf.set(p, cur);
      if (i < parents.length - 1) stack.push(p);
      else {
        commit = p;
        cur = depthOf.get(p)!;
      }
    }
  }
  return result.reverse();
}

/**
 * The boundary of `rev-list --max-age=<since> <wants> --not <deepen-not refs>`: listed commits
 * with a parent that is not listed.
 */
function shallowByRevList(s: Session, wants: readonly number[], since: number | null, notRefs: readonly string[]): number[] {
  const excluded = new Set<number>();
  const stack: number[] = [];
  for (const name of notRefs) {
    const c = s.peel(s.index(resolveDeepenNot(s, name)));
    if (c >= 0 && s.typeOf(c) === OBJ_COMMIT) stack.push(c);
  }
  while (stack.length) {
    const c = stack.pop()!;
    if (excluded.has(c)) continue;
    excluded.add(c);
    for (const p of s.parents(c)) stack.push(p);
  }
  const listed: number[] = [];
  for (const w of wants) {
    const c = s.peel(w);
    if (c >= 0 && s.typeOf(c) === OBJ_COMMIT) stack.push(c);
  }
  while (stack.length) {
    const c = stack.pop()!;
    if (s.has(c, NOT_SHALLOW) || excluded.has(c)) continue;
    if (since !== null && s.time(c) < since) continue;
    s.mark(c, NOT_SHALLOW);
    listed.push(c);
    for (const p of s.parents(c)) stack.push(p);
  }
  if (listed.length === 0) throw clientError('no commits selected for shallow requests');
  const result: number[] = [];
  for (const c of listed) {
    if (s.parents(c).some(p => !s.has(p, NOT_SHALLOW))) result.push(c);
  }
  for (const c of result) {
    s.mark(c, SHALLOW);
    s.marks[c]! &= ~NOT_SHALLOW;
  }
  return result;
}

/** deepen-not names a ref the way git's expand_ref does: exactly one of the usual spellings. */
function resolveDeepenNot(s: Session, name: string): string {
  const rules = [name, `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
  const found: { ref: string; oid: string }[] = [];
  for (const ref of rules) {
    let r: { oid: string } | null = null;
    try {
      r = s.repo.refs.resolve(ref);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
    }
    if (r) found.push({ ref, oid: r.oid });
  }
  if (found.length !== 1) throw clientError(`ambiguous deepen-not: ${name}`);
  if (!found[0]!.ref.startsWith('refs/')) throw clientError(`deepen-not is not a ref: ${name}`);
  return found[0]!.oid;
}

/** The client's boundary commits that our refs can reach (deepen-relative counts from them). */
function reachableFromRefs(s: Session, commits: readonly number[]): number[] {
  const wanted = new Set(commits);
  const found: number[] = [];
  const seen = new Set<number>();
  const stack: number[] = [];
  for (const r of allRefs(s.refs)) {
    const c = s.peel(s.index(r.oid));
    if (c >= 0 && s.typeOf(c) === OBJ_COMMIT) stack.push(c);
  }
  while (stack.length && found.length < wanted.size) {
    const c = stack.pop()!;
    if (seen.has(c)) continue;
    seen.add(c);
    if (wanted.has(c)) found.push(c);
    for (const p of s.parents(c)) stack.push(p);
  }
  return found;
}
