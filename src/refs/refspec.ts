// Refspecs as git's refspec.c parse_refspec reads them, for fetch and for push: `[+]<src>[:<dst>]`
// (the last `:` splits), or `^<src>` to exclude refs. A pattern has one `*` on each side, and
// `@` alone stands for HEAD. The directions differ where git's do:
//   - fetch: an empty <src> means the remote's HEAD; a missing or empty <dst> stores nothing (the
//     ref goes to FETCH_HEAD only); a pattern needs a <dst>; <src> is a ref name or an object id;
//   - push: `:` (or `+:`) pushes the branches both sides have; an empty <src> deletes <dst>; <dst>
//     is never empty and may be missing (the source's own name), in which case <src> must be a ref
//     name; otherwise <src> may be any revision (HEAD~2), checked only when it is a pattern.
// Every name a side gives is checked with git's ref-name rules before anything uses it. They live
// with the refs because the repository maps a branch's upstream through them (@{upstream}), and
// push its remote-tracking refs the same way (trackingRefFor).
import { GitError } from '../core/errors.js';
import { isHexOid } from '../core/oid.js';
import { checkRefFormat } from './check-ref-format.js';

export interface Refspec {
  readonly force: boolean;
  readonly negative: boolean;
  readonly pattern: boolean;
  /** HEAD when the refspec gave none. */
  readonly src: string;
  /** Empty when the ref is fetched only into FETCH_HEAD. */
  readonly dst: string;
  readonly text: string;
}

export interface PushRefspec {
  readonly force: boolean;
  readonly negative: boolean;
  /** The `:` refspec. */
  readonly matching: boolean;
  readonly pattern: boolean;
  /** Empty: delete `dst`. */
  readonly src: string;
  /** null when the refspec has no `:` (the source's own name is used). */
  readonly dst: string | null;
  readonly text: string;
}

/** A fetch refspec (remote.<name>.fetch, or `git fetch <remote> <refspec>`). */
export function parseRefspec(text: string): Refspec {
  const { force, negative, pattern, src, dst } = parse(text, true);
  return { force, negative, pattern, src: src === '' ? 'HEAD' : src, dst: dst ?? '', text };
}

/** A push refspec (remote.<name>.push, or `git push <remote> <refspec>`). */
export function parsePushRefspec(text: string): PushRefspec {
  return parse(text, false);
}

function parse(text: string, fetch: boolean): PushRefspec {
  let lhs = text, force = false, negative = false;
  if (lhs.startsWith('+')) { force = true; lhs = lhs.slice(1); }
  else if (lhs.startsWith('^')) { negative = true; lhs = lhs.slice(1); }
  const colon = lhs.lastIndexOf(':');
  // A negative refspec only excludes: it has nowhere to send.
  if (negative && colon >= 0) throw badRefspec(text);
  if (!fetch && lhs === ':') return { force, negative, matching: true, pattern: false, src: '', dst: null, text };
  const dst = colon < 0 ? null : lhs.slice(colon + 1);
  const rawSrc = colon < 0 ? lhs : lhs.slice(0, colon);
  const src = rawSrc === '@' ? 'HEAD' : rawSrc;
  const pattern = src.includes('*');
  // A pattern has * on both sides, and a fetch pattern a destination.
  if (pattern ? dst !== null && !dst.includes('*') : dst?.includes('*')) throw badRefspec(text);
  if (pattern && dst === null && fetch && !negative) throw badRefspec(text);
  const check = (name: string) => {
    if (checkRefFormat(name, { allowOneLevel: true, refspecPattern: pattern }) !== null) throw badRefspec(text);
  };
  if (negative) {
    // An exclusion names refs: a name or a pattern, never an object.
    if (src === '' || isHexOid(src)) throw badRefspec(text);
    check(src);
  } else if (fetch) {
    if (src !== '' && !isHexOid(src)) check(src);
    if (dst) check(dst);
  } else {
    if (pattern || dst === null) check(src);
    // `main:` names nowhere: an empty destination is a fetch's only.
    if (dst === '') throw badRefspec(text);
    if (dst) check(dst);
  }
  return { force, negative, matching: false, pattern, src, dst, text };
}

/** git's refspec_item_init_or_die: the text, never what is wrong with it. */
function badRefspec(text: string): GitError {
  return new GitError('client', 'bad-refspec', `invalid refspec '${text}'`);
}

/** For a pattern refspec side `a/*\/b`, what `*` matched in `name`, or null. */
function matchPattern(pattern: string, name: string): string | null {
  const star = pattern.indexOf('*');
  const prefix = pattern.slice(0, star), suffix = pattern.slice(star + 1);
  if (name.length < prefix.length + suffix.length || !name.startsWith(prefix) || !name.endsWith(suffix)) return null;
  return name.slice(prefix.length, name.length - suffix.length);
}

/** `name` mapped from one pattern side to the other (`*` of `to` replaced by what `*` of `from` matched), or null (git's match_name_with_pattern). */
export function mapPattern(from: string, to: string, name: string): string | null {
  const star = matchPattern(from, name);
  if (star === null) return null;
  const at = to.indexOf('*');
  return to.slice(0, at) + star + to.slice(at + 1);
}

/**
 * The ref a remote's fetch refspecs store its ref `ref` (a full name) in, or null: git's
 * remote_find_tracking, which @{upstream}, a push's remote-tracking refs and --force-with-lease's
 * default expectation all use. Unlike a fetch, names are compared as written: a refspec
 * `main:refs/remotes/origin/main` does not name refs/heads/main here, and a destination comes back
 * as the refspec spells it. The first refspec that maps `ref` wins.
 */
export function trackingRefFor(specs: readonly QueriedRefspec[], ref: string): string | null {
  return queryRefspecs(specs, ref, 'src')[0]?.name ?? null;
}

/**
 * The remote refs the fetch refspecs among `specs` store in `ref`, each refspec's in order, none
 * when a `^` refspec excludes it: remote_find_tracking asked the other way (by destination, git's
 * query_refspecs_multiple), which `remote remove` and `remote prune` use to find a remote's
 * tracking refs and those gone from it.
 */
export function trackedSourcesFor(specs: readonly Refspec[], ref: string): string[] {
  return queryRefspecs(specs, ref, 'dst').map((m) => m.name);
}

/**
 * Where remote.<name>.push sends the local ref `ref` (a full name), and whether forced: the first
 * refspec with a destination that maps it, none when a `^` refspec excludes it (git's
 * query_refspecs, which `git push <remote> <branch>` maps a branch through).
 */
export function pushDestinationFor(specs: readonly PushRefspec[], ref: string): { name: string; force: boolean } | null {
  const found = queryRefspecs(specs, ref, 'src')[0];
  return found ? { name: found.name, force: found.spec.force } : null;
}

/** A fetch or a push refspec, as git's query_refspecs reads either: a missing or empty <dst> is none. */
type QueriedRefspec = Pick<PushRefspec, 'force' | 'negative' | 'pattern' | 'src'> & { readonly dst: string | null; readonly matching?: boolean };

/** git's query_refspecs: `ref` looked up on the `by` side of each refspec, the other side's names returned with their refspec. */
function queryRefspecs<S extends QueriedRefspec>(specs: readonly S[], ref: string, by: 'src' | 'dst'): { name: string; spec: S }[] {
  if (negated(specs, ref)) return [];
  const found: { name: string; spec: S }[] = [];
  for (const s of specs) {
    if (s.negative || !s.dst) continue;
    const [key, value] = by === 'src' ? [s.src, s.dst] : [s.dst, s.src];
    const mapped = s.pattern ? mapPattern(key, value, ref) : key === ref ? value : null;
    if (mapped !== null) found.push({ name: mapped, spec: s });
  }
  return found;
}

/**
 * git's query_matches_negative_refspec for this query (by source or by destination alike): the sources the other refspecs give `ref`,
 * any of them excluded by a `^` refspec. git reads a pattern from its destination side here (the
 * check serves the reverse query too; a push pattern without one, from its source), so a
 * `^refs/heads/x` hides refs/heads/x from an exact refspec naming it or from
 * `refs/heads/*:refs/heads/*`, but not from `refs/heads/*:refs/remotes/origin/*`; git 2.39 behaves
 * so, and tsgit with it. The `:` push refspec gives `ref` itself.
 */
function negated(specs: readonly QueriedRefspec[], ref: string): boolean {
  const sources: string[] = [];
  for (const s of specs) {
    if (s.negative) continue;
    const source = s.pattern ? mapPattern(s.dst || s.src, s.src, ref) : s.matching ? ref : s.src === ref ? s.src : null;
    if (source !== null) sources.push(source);
  }
  return sources.some((name) => omitted(specs, name));
}

/** Whether a `^` refspec among `specs` excludes the ref `name` (git's omit_name_by_refspec). */
export function omitted(specs: readonly Pick<Refspec, 'negative' | 'pattern' | 'src'>[], name: string): boolean {
  return specs.some((n) => n.negative && (n.pattern ? matchPattern(n.src, name) !== null : n.src === name));
}

/** git's ref_rev_parse_rules, in order: the prefix and suffix around a short name. */
export const REF_RULES: readonly (readonly [string, string])[] = [
  ['', ''], ['refs/', ''], ['refs/tags/', ''], ['refs/heads/', ''], ['refs/remotes/', ''], ['refs/remotes/', '/HEAD'],
];

/** How `main` or `v1.0` names a full ref, in git's order (ref_rev_parse_rules). */
export function expandAbbreviation(name: string): string[] {
  return REF_RULES.map(([prefix, suffix]) => `${prefix}${name}${suffix}`);
}
