// Turning a revision name into an object id, as git's get_oid does for the forms tools use:
// full and abbreviated ids, ref names with git's search order, `@`, `<branch>@{upstream}`,
// `<branch>@{push}`, `<ref>@{<n>}`, `<ref>@{<date>}`, `@{-<n>}`, and the suffixes ^, ^N, ~N, ^{},
// ^{type} and <rev>:<path>.
import { NotFoundError, GitError } from '../core/errors.js';
import { fromHex, OID_BYTES, OID_HEX, oidEquals, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { parseTag } from '../object/tag.js';
import { findTreeEntry } from '../object/tree.js';
import { OBJ_COMMIT, OBJ_TAG, OBJ_TREE, typeCode, type ObjectTypeCode } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { expandAbbreviation } from '../refs/refspec.js';

export interface RefResolver {
  /** The id a ref name (possibly symbolic) ends at, as hex; null if no such ref. */
  resolveRef(name: string): string | null;
  /**
   * The full ref name of a branch's upstream ('' for the branch checked out), or throws why there
   * is none; without it `@{upstream}` names nothing.
   */
  upstream?(branch: string): string;
  /** As upstream, for `@{push}`: the remote-tracking ref a push of the branch updates. */
  pushTracking?(branch: string): string;
  /**
   * `<ref>@{<n>}` and `<ref>@{<date>}` (`when`, the text between the braces): the value the ref
   * ('' for the branch checked out) had n updates ago, or at the date, by its reflog; null when it
   * has no reflog or `when` is neither; throws when the reflog is shorter than n.
   */
  reflogAt?(ref: string, when: string): string | null;
  /** `@{-<n>}`: the branch (or commit) checked out before the n-th last checkout, by HEAD's reflog; null when there was none. */
  priorCheckout?(n: number): string | null;
  /** Told of a short name that more than one of git's search rules finds a ref for (git warns). */
  ambiguous?(name: string): void;
}

/** `@{-<n>}`, the n-th prior checkout (git's interpret_nth_prior_checkout). */
const PRIOR_MARK = /^@\{-([0-9]+)\}$/;

/**
 * `<ref>@{<n>}` or `<ref>@{<date>}`: the ref and the text between the braces, split at the last
 * `@{` with something before the closing brace, as git's get_oid_basic looks for it; null for
 * no such form. Not a regular expression: one backtracked quadratically over a name of many `@{`.
 */
function reflogMark(name: string): { ref: string; when: string } | null {
  if (!name.endsWith('}') || name.length < 4) return null;
  const at = name.lastIndexOf('@{', name.length - 4);
  return at < 0 ? null : { ref: name.slice(0, at), when: name.slice(at + 2, -1) };
}

/** `<branch>@{upstream}` or `@{u}` (any case, as git's upstream_mark), the branch part first. */
const UPSTREAM_MARK = /^(.*)@\{(?:u|upstream)\}$/is;

/** `<branch>@{push}` (any case, as git's push_mark). */
const PUSH_MARK = /^(.*)@\{push\}$/is;


/** One suffix of a revision: ^{<type>} (peel ''), ^<n>, or ~<n>. */
type Suffix = { peel: string } | { parent: number } | { ancestor: number };

/**
 * Splits the ^, ^<n>, ~<n> and ^{...} suffixes off `spec`, scanning from the right as git's
 * get_oid_1 and peel_onion do; the suffixes come back in the order they apply. Linear: the regular
 * expression this replaces, a lazy base before a repeated suffix group, backtracked quadratically
 * (4 s for 30,000 carets, a minute at the 128 KiB an argument can be), and its '.' did not match
 * a newline, so a name with one threw a TypeError.
 */
function splitSuffixes(spec: string): { base: string; suffixes: Suffix[] } {
  const suffixes: Suffix[] = [];
  let end = spec.length;
  for (;;) {
    if (spec[end - 1] === '}') {
      // The nearest ^{ to the left, with no } in between.
      const open = end >= 3 ? spec.lastIndexOf('^{', end - 3) : -1;
      const type = open < 0 ? '}' : spec.slice(open + 2, end - 1);
      if (type.includes('}')) break;
      suffixes.push({ peel: type });
      end = open;
      continue;
    }
    let digits = end;
    while (digits > 0 && spec.charCodeAt(digits - 1) >= 0x30 && spec.charCodeAt(digits - 1) <= 0x39) digits--;
    const op = spec[digits - 1];
    if (op !== '^' && op !== '~') break;
    const n = digits === end ? 1 : Number(spec.slice(digits, end));
    suffixes.push(op === '^' ? { parent: n } : { ancestor: n });
    end = digits - 1;
  }
  return { base: spec.slice(0, end), suffixes: suffixes.reverse() };
}

/**
 * Where `<rev>:<path>` splits: the first ':' outside braces, as git's get_oid_with_context_1 looks
 * for it, so that `main@{2026-12-01 10:00}` is a name and not a path in `main@{2026-12-01 10`.
 */
function pathColon(spec: string): number {
  let depth = 0;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (c === '{') depth++;
    else if (depth > 0 && c === '}') depth--;
    else if (depth === 0 && c === ':') return i;
  }
  return -1;
}

export class RevResolver {
  constructor(private readonly odb: ObjectStore, private readonly refs: RefResolver) {}

  /** Resolves `spec`; throws a NotFoundError naming it when it does not resolve. */
  resolve(spec: string): Uint8Array {
    const id = this.tryResolve(spec);
    if (!id) throw new NotFoundError('walk', `ambiguous argument '${spec}': unknown revision or path not in the working tree.`);
    return id;
  }

  tryResolve(spec: string): Uint8Array | null {
    const colon = pathColon(spec);
    if (colon > 0 && !spec.startsWith(':/')) {
      const tree = this.tryResolve(spec.slice(0, colon));
      if (!tree) return null;
      return this.lookupPath(this.peel(tree, OBJ_TREE, spec), spec.slice(colon + 1), spec);
    }
    const { base: named, suffixes } = splitSuffixes(spec);
    const base = named === '@' ? 'HEAD' : named;
    if (!base) return null;
    let id = this.resolveBase(base);
    if (!id) return null;
    for (const s of suffixes) {
      if ('peel' in s) {
        const want = s.peel;
        if (want === '') id = this.peelTags(id);
        else if (want === 'object') { /* any object */ }
        else {
          const t = typeCode(want);
          if (!t) throw new GitError('walk', 'bad-revision', `invalid object type in '${spec}'`);
          id = this.peel(id, t, spec);
        }
      } else if ('parent' in s) {
        const n = s.parent;
        const commit = this.peel(id, OBJ_COMMIT, spec);
        if (n === 0) { id = commit; continue; }
        const parents = this.parents(commit);
        const p = parents[n - 1];
        if (!p) return null;
        id = p;
      } else {
        let c = this.peel(id, OBJ_COMMIT, spec);
        for (let k = 0; k < s.ancestor; k++) {
          const p = this.parents(c)[0];
          if (!p) return null;
          c = p;
        }
        id = c;
      }
    }
    return id;
  }

  /**
   * What `@{-<n>}` stands for: the branch name (or id) checked out before, null when there was no
   * such checkout, undefined when `name` is no such form.
   */
  priorName(name: string): string | null | undefined {
    const m = PRIOR_MARK.exec(name);
    if (!m || !this.refs.priorCheckout || Number(m[1]) === 0) return undefined;
    return this.refs.priorCheckout(Number(m[1]));
  }

  /** The full ref name `<branch>@{upstream}` or `<branch>@{push}` stands for, or null when `name` is no such form. */
  branchMark(name: string): string | null {
    const upstream = UPSTREAM_MARK.exec(name);
    if (upstream && this.refs.upstream) return this.refs.upstream(upstream[1]!);
    const push = PUSH_MARK.exec(name);
    return push && this.refs.pushTracking ? this.refs.pushTracking(push[1]!) : null;
  }

  private resolveBase(name: string): Uint8Array | null {
    const prior = this.priorName(name);
    if (prior !== undefined) return prior === null ? null : this.resolveBase(prior);
    const full = fromHex(name);
    if (full) return full;
    const marked = this.branchMark(name);
    if (marked !== null) {
      const hex = this.refs.resolveRef(marked);
      return hex ? fromHex(hex) : null;
    }
    const logged = reflogMark(name);
    if (logged && this.refs.reflogAt) {
      // git's get_oid_basic: `@{-<n>}` names nothing but at the start (priorName's form).
      if (logged.when.startsWith('-')) return null;
      const hex = this.refs.reflogAt(logged.ref, logged.when);
      return hex ? fromHex(hex) : null;
    }
    let found: string | null = null;
    for (const ref of expandAbbreviation(name)) {
      const hex = this.refs.resolveRef(ref);
      if (!hex) continue;
      // git's get_oid_basic counts every rule that finds a ref, when it is to warn of more than one.
      if (found === null) found = hex;
      else {
        this.refs.ambiguous?.(name);
        break;
      }
      if (!this.refs.ambiguous) break;
    }
    if (found) return fromHex(found);
    if (/^[0-9a-fA-F]{4,39}$/.test(name)) return this.abbreviated(name.toLowerCase());
    return null;
  }

  /** Unique object whose hex id starts with `prefix`; ambiguous prefixes are an error, as in git. */
  private abbreviated(prefix: string): Uint8Array | null {
    const key = Buffer.from(prefix.padEnd(OID_HEX, '0'), 'hex');
    let found: Uint8Array | null = null;
    let ambiguous = false;
    this.odb.forEachIdWithPrefix(key, 0, prefix.length, (buf, off) => {
      if (!found) found = new Uint8Array(buf.subarray(off, off + OID_BYTES));
      else if (!oidEquals(found, 0, buf, off)) ambiguous = true;
    });
    if (ambiguous) throw new GitError('walk', 'ambiguous', `short object ID ${prefix} is ambiguous`);
    return found;
  }

  private parents(commit: Uint8Array): Uint8Array[] {
    const o = this.odb.mustRead(commit, 0, OBJ_COMMIT);
    return parseCommit(o.data, () => toHex(commit)).parents;
  }

  /** Follows tags (and commits, for tree) until an object of `type`. */
  peel(id: Uint8Array, type: ObjectTypeCode, spec: string): Uint8Array {
    for (let depth = 0; depth < 64; depth++) {
      const o = this.odb.mustRead(id);
      if (o.type === type) return id;
      if (o.type === OBJ_TAG) { id = parseTag(o.data, () => toHex(id)).object; continue; }
      if (o.type === OBJ_COMMIT && type === OBJ_TREE) return parseCommit(o.data, () => toHex(id)).tree;
      break;
    }
    throw new GitError('walk', 'bad-revision', `'${spec}' does not name a ${['', 'commit', 'tree', 'blob', 'tag'][type]}`);
  }

  peelTags(id: Uint8Array): Uint8Array {
    for (let depth = 0; depth < 64; depth++) {
      const o = this.odb.mustRead(id);
      if (o.type !== OBJ_TAG) return id;
      id = parseTag(o.data, () => toHex(id)).object;
    }
    throw new GitError('walk', 'bad-revision', `tag chain from ${toHex(id)} is too deep`);
  }

  private lookupPath(tree: Uint8Array, p: string, spec: string): Uint8Array | null {
    const parts = p.split('/').filter(x => x.length > 0);
    let id = tree;
    for (let i = 0; i < parts.length; i++) {
      const o = this.odb.mustRead(id);
      if (o.type !== OBJ_TREE) return null;
      const cur = findTreeEntry(o.data, Buffer.from(parts[i]!, 'utf8'), undefined, undefined, toHex(id));
      const next = cur ? Uint8Array.prototype.slice.call(o.data, cur.oidOffset, cur.oidOffset + OID_BYTES) : null;
      if (!next) throw new NotFoundError('walk', `path '${parts.slice(0, i + 1).join('/')}' does not exist in '${spec.slice(0, pathColon(spec))}'`);
      id = next;
    }
    return id;
  }
}
