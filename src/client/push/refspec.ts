// Which local objects go to which remote refs (git's remote.c match_push_refs, builtin/push.c's
// push.default), for refspecs parse-refspec.ts has read: <src> is a local ref (abbreviated as
// rev-parse abbreviates: main means refs/heads/main) or any revision (HEAD~2, an id) when <dst>
// is given, an empty <src> deletes <dst>, `:` pushes every branch the remote has by the same
// name, and a pattern (refs/heads/*:refs/remotes/x/*) maps many, each ref by the first pattern
// that maps it; refspecs naming one ref come before any pattern, wherever they stand. A <dst> that
// is not a full name is matched against the remote's refs, else guessed from the kind of <src> (a
// branch or a tag). With --prune, remote refs a pattern (or ':') covers whose local counterpart is
// gone are deleted.
// The sources alone are checked before the remote is contacted (checkPushSources).
import { fromHex, toHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../../object/type.js';
import { checkRefFormat, checkRefPath } from '../../refs/check-ref-format.js';
import type { RefStore } from '../../refs/index.js';
import type { Repository } from '../../repository/repository.js';
import { expandAbbreviation, mapPattern, omitted, type PushRefspec } from '../../refs/refspec.js';

export interface PushTarget {
  /** The local ref or revision pushed; null for a deletion. */
  readonly src: string | null;
  /** The remote ref. */
  readonly dst: string;
  /** Zero id for a deletion. */
  readonly newOid: string;
  /** What the remote has there now (zero id when nothing). */
  readonly oldOid: string;
  readonly force: boolean;
}

export interface LocalRef {
  readonly name: string;
  readonly oid: string;
}

/**
 * git's count_refspec_match: the refs `pattern` names by rev-parse's rules. A "weak" match (outside
 * heads and tags, not spelled from refs/ or one level below) counts only when nothing strong does.
 */
export function refspecMatches<T extends { name: string }>(pattern: string, refs: readonly T[]): T[] {
  const strong: T[] = [], weak: T[] = [];
  const candidates = new Set(expandAbbreviation(pattern));
  for (const r of refs) {
    if (!candidates.has(r.name)) continue;
    const full = r.name.length === pattern.length || r.name.length - 5 === pattern.length;
    if (!full && !r.name.startsWith('refs/heads/') && !r.name.startsWith('refs/tags/')) weak.push(r);
    else strong.push(r);
  }
  return strong.length ? strong : weak;
}

/**
 * The refs here that `name` may abbreviate: those among its expansions that exist, HEAD when it
 * is HEAD. refspecMatches looks at no other, so this serves it without listing every ref.
 */
export function refsNamed(refStore: RefStore, name: string): LocalRef[] {
  const out: LocalRef[] = [];
  for (const full of expandAbbreviation(name)) {
    if (full !== 'HEAD' && !(full.startsWith('refs/') && checkRefPath(full) === null)) continue;
    const oid = refStore.resolve(full)?.oid;
    if (oid) out.push({ name: full, oid });
  }
  return out;
}

/** A refspec's source as git's match_explicit_lhs finds it: `ref` when a ref, else null (a revision). */
type Source = { name: string; ref: string | null; oid: string } | { error: string };

/** git's match_explicit_lhs: the one local ref `src` names, else any revision it names; else git's error. */
function findSource(repo: Repository, src: string, local: readonly LocalRef[]): Source {
  const found = refspecMatches(src, local);
  if (found.length > 1) return { error: `src refspec ${src} matches more than one` };
  if (found.length === 1) return { name: found[0]!.name, ref: found[0]!.name, oid: found[0]!.oid };
  const id = repo.revs().tryResolve(src);
  return id ? { name: src, ref: null, oid: toHex(id) } : { error: `src refspec ${src} does not match any` };
}

/**
 * git's check_push_refs, run before the remote is contacted: the errors of the sources that name
 * nothing or more than one ref, every one of them (a push with any fails whole).
 */
export function checkPushSources(repo: Repository, refStore: RefStore, specs: readonly PushRefspec[]): string[] {
  const errors: string[] = [];
  for (const spec of specs) {
    if (spec.pattern || spec.matching || spec.negative || spec.src === '') continue;
    const found = findSource(repo, spec.src, refsNamed(refStore, spec.src));
    if ('error' in found) errors.push(found.error);
  }
  return errors;
}

/**
 * The updates `specs` ask for. `local` holds HEAD (when it resolves) and every ref; `remote` the
 * remote's advertised refs. Errors are git's ("src refspec x does not match any", ..., with the
 * hint lines git adds to one), collected so that every bad refspec is reported; the caller fails
 * the push with them. `fatal` is git's die, which ends the matching there.
 */
export function matchPushRefs(repo: Repository, local: readonly LocalRef[], remote: readonly LocalRef[], specs: readonly PushRefspec[],
  forceAll: boolean, prune = false): { targets: PushTarget[]; errors: string[]; fatal?: string } {
  const remoteOid = new Map(remote.map((r) => [r.name, r.oid]));
  const targets: PushTarget[] = [];
  const byDst = new Map<string, PushTarget>();
  const errors: string[] = [];
  const excluded = (name: string) => omitted(specs, name);
  const add = (src: string | null, dst: string, newOid: string, force: boolean) => {
    const t: PushTarget = { src, dst, newOid, oldOid: remoteOid.get(dst) ?? ZERO_HEX, force: force || forceAll };
    byDst.set(dst, t);
    targets.push(t);
  };
  // git's match_explicit_refs: the refspecs that name one ref, in their order, before any pattern,
  // so that a pattern never overrides one, wherever either stands.
  for (const spec of specs) {
    if (spec.negative || spec.matching || spec.pattern) continue;
    // The source: a ref, else any revision; empty deletes.
    let srcName: string | null = null, newOid = ZERO_HEX, srcRef: string | null = null;
    if (spec.src !== '') {
      const found = findSource(repo, spec.src, local);
      if ('error' in found) { errors.push(found.error); continue; }
      ({ name: srcName, ref: srcRef, oid: newOid } = found);
    }
    let dst = spec.dst;
    if (dst === null) {
      // parsePushRefspec gives a refspec without a destination a source.
      dst = ownName(repo, srcName!);
      // git dies here, after the errors of the refspecs before this one.
      if (dst === null) return { targets: [], errors, fatal: `${srcName} cannot be resolved to branch` };
    }
    if (excluded(dst)) continue;
    const remoteMatch = refspecMatches(dst, remote);
    if (remoteMatch.length > 1) { errors.push(`dst refspec ${dst} matches more than one`); continue; }
    if (remoteMatch.length === 1) dst = remoteMatch[0]!.name;
    else if (!dst.startsWith('refs/')) {
      if (newOid === ZERO_HEX) { errors.push(`unable to delete '${dst}': remote ref does not exist`); continue; }
      const kind = srcRef === 'HEAD' ? repo.refs.head().symref : srcRef;
      if (kind?.startsWith('refs/heads/')) dst = `refs/heads/${dst}`;
      else if (kind?.startsWith('refs/tags/')) dst = `refs/tags/${dst}`;
      else { errors.push(unqualified(dst, srcName!, repo.odb.info(fromHex(newOid)!)?.type)); continue; }
    }
    const reason = checkRefFormat(dst);
    if (reason !== null) { errors.push(`invalid destination ref '${dst}': it ${reason}`); continue; }
    // Even the same source twice: git counts a destination taken, not what it is given. git's
    // match_explicit_refs finds the destinations it adds through the remote's ref list, which it
    // holds from its first ref: a remote that has no ref at all is sent every one, twice if so
    // named, and its receive-pack refuses the second.
    if (remote.length > 0 && byDst.has(dst)) { errors.push(`dst ref ${dst} receives from more than one src`); continue; }
    add(srcName === null ? null : srcRef ?? srcName, dst, newOid, spec.force);
  }
  // Local refs are gone through only for a pattern or ':': a push of named refs need not check them all.
  if (specs.some((s) => !s.negative && (s.pattern || s.matching))) {
    // git's one_local_ref: a ref with one level below refs/ (refs/stash, a refs/symref) is not
    // pushed by a pattern; the remote would refuse it as a funny refname. Each of the others, in
    // name order, goes where the first pattern that maps it sends it: when two refs map to one
    // destination, the first in name order has it.
    for (const r of local) {
      if (!r.name.startsWith('refs/') || checkRefFormat(r.name.slice(5)) !== null || excluded(r.name)) continue;
      const to = mappedBy(specs, r.name, 'src');
      // ':' pushes only what the remote has.
      if (to === null || byDst.has(to.name) || (to.matching && !remoteOid.has(to.name))) continue;
      add(r.name, to.name, r.oid, to.force);
    }
    // --prune (git's MATCH_REFS_PRUNE): a remote ref nothing is sent to, which the refspecs map
    // back to a local ref that does not exist, is deleted.
    if (prune) {
      const localNames = new Set(local.map((r) => r.name));
      for (const r of remote) {
        if (!r.name.startsWith('refs/') || byDst.has(r.name) || excluded(r.name)) continue;
        const from = mappedBy(specs, r.name, 'dst');
        if (from !== null && !localNames.has(from.name)) add(null, r.name, ZERO_HEX, from.force);
      }
    }
  }
  // git's match_push_refs works on the remote's ref list and appends the refs it creates, so the
  // report lists the remote's refs in their advertised order, then the new ones in match order.
  const remoteIndex = new Map(remote.map((r, i) => [r.name, i]));
  const rank = (t: PushTarget) => remoteIndex.get(t.dst) ?? remote.length;
  targets.sort((a, b) => rank(a) - rank(b));
  return { targets, errors };
}

/**
 * git's get_ref_match: where the pattern and ':' refspecs send the ref `name` (a local ref, by
 * `src`), or which local ref they would send to it (a remote ref, by `dst`). The first pattern
 * that maps it wins; ':' maps a branch to itself only when no pattern does, forced when any
 * ':' given is.
 */
function mappedBy(specs: readonly PushRefspec[], name: string, by: 'src' | 'dst'): { name: string; force: boolean; matching: boolean } | null {
  let matching: PushRefspec | null = null;
  for (const spec of specs) {
    if (spec.negative) continue;
    if (spec.matching) {
      if (matching === null || spec.force) matching = spec;
    } else if (spec.pattern) {
      const dst = spec.dst ?? spec.src;
      const mapped = by === 'src' ? mapPattern(spec.src, dst, name) : mapPattern(dst, spec.src, name);
      if (mapped !== null) return { name: mapped, force: spec.force, matching: false };
    }
  }
  return matching !== null && name.startsWith('refs/heads/') ? { name, force: matching.force, matching: true } : null;
}

/**
 * Where a refspec without a destination sends its source (git's resolve_ref_unsafe of it): the
 * ref's own name, a symbolic ref's branch (HEAD's), a detached HEAD itself, which the remote side
 * then cannot place. null for what is no ref (an object id) and for a symbolic ref to other than
 * a branch.
 */
function ownName(repo: Repository, src: string): string | null {
  if (checkRefPath(src) !== null) return null;
  const chain = repo.refs.resolve(src)?.chain;
  const target = chain?.[chain.length - 1];
  if (target === undefined || (chain!.length > 1 && !target.startsWith('refs/heads/'))) return null;
  return target;
}

/**
 * git's show_push_unqualified_ref_name_error: the error, then a hint that names the ref to push
 * to for what the source is.
 */
function unqualified(dst: string, src: string, type: number | undefined): string {
  const hint = type === OBJ_COMMIT ? `commit object.\nDid you mean to create a new branch by pushing to\n'${src}:refs/heads/${dst}'?`
    : type === OBJ_TAG ? `tag object.\nDid you mean to create a new tag by pushing to\n'${src}:refs/tags/${dst}'?`
      : type === OBJ_TREE ? `tree object.\nDid you mean to tag a new tree by pushing to\n'${src}:refs/tags/${dst}'?`
        : `blob object.\nDid you mean to tag a new blob by pushing to\n'${src}:refs/tags/${dst}'?`;
  return `The destination you provided is not a full refname (i.e.,
starting with "refs/"). We tried to guess what you meant by:

- Looking for a ref that matches '${dst}' on the remote side.
- Checking if the <src> being pushed ('${src}')
  is a ref in "refs/{heads,tags}/". If so we add a corresponding
  refs/{heads,tags}/ prefix on the remote side.

Neither worked, so we gave up. You must fully qualify the ref.
${`The <src> part of the refspec is a ${hint}`.split('\n').map((l) => `hint: ${l}`).join('\n')}`;
}
