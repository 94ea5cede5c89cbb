// Fetch refspecs applied to a remote's refs (git's remote.c get_fetch_map), once parse-refspec.ts
// has read them: a pattern maps many refs, `^<src>` excludes refs, and a plain source names a
// remote ref the way `git rev-parse` rules abbreviate it (main -> refs/heads/main). Every
// destination is checked with git's ref-name rules before anything uses it as a path.
import { GitError } from '../core/errors.js';
import { checkRefFormat } from '../refs/check-ref-format.js';
import { expandAbbreviation, mapPattern, omitted, type Refspec } from '../refs/refspec.js';
import type { RemoteRef } from './session.js';

export interface MappedRef {
  /** The remote ref (its name and id). */
  readonly remote: RemoteRef & { oid: string };
  /** The local ref it updates, or null for FETCH_HEAD only. */
  readonly local: string | null;
  readonly force: boolean;
}

/** Where a plain destination lands: `foo` means refs/heads/foo, `tags/x` refs/tags/x (git's get_local_ref). */
function localName(dst: string): string {
  if (dst.startsWith('refs/')) return dst;
  if (dst.startsWith('heads/') || dst.startsWith('tags/') || dst.startsWith('remotes/')) return `refs/${dst}`;
  return `refs/heads/${dst}`;
}

/** The ref prefixes to ask a v2 server for, so it lists only what the refspecs can match. */
export function refPrefixes(specs: readonly Refspec[]): string[] {
  const out: string[] = [];
  for (const spec of specs) {
    if (spec.negative) continue;
    if (spec.pattern) out.push(spec.src.slice(0, spec.src.indexOf('*')));
    else if (/^[0-9a-f]{40}$/.test(spec.src)) continue;
    else out.push(...expandAbbreviation(spec.src));
  }
  return [...new Set(out)];
}

/**
 * The remote refs the refspecs select, each with the local ref it updates, in refspec order
 * (git's get_fetch_map). Refs excluded by a negative refspec are dropped; a plain source that
 * matches nothing is an error, as in git ("couldn't find remote ref"), unless `missingOk`.
 */
export function mapRefs(refs: readonly RemoteRef[], specs: readonly Refspec[], missingOk = false): MappedRef[] {
  const excluded = (name: string) => omitted(specs, name);
  const out: MappedRef[] = [];
  const withOid = refs.filter((r): r is RemoteRef & { oid: string } => r.oid !== null);
  for (const spec of specs) {
    if (spec.negative) continue;
    if (spec.pattern) {
      for (const ref of withOid) {
        const local = mapPattern(spec.src, spec.dst, ref.name);
        if (local === null || excluded(ref.name)) continue;
        out.push({ remote: ref, local: checkedLocal(local, spec), force: spec.force });
      }
      continue;
    }
    let ref: (RemoteRef & { oid: string }) | undefined;
    if (/^[0-9a-f]{40}$/.test(spec.src)) {
      ref = { name: spec.src, oid: spec.src };
    } else {
      for (const candidate of expandAbbreviation(spec.src)) {
        ref = withOid.find((r) => r.name === candidate);
        if (ref) break;
      }
    }
    if (!ref) {
      if (missingOk) continue;
      throw new GitError('client', 'no-such-ref', `couldn't find remote ref ${spec.src}`);
    }
    if (excluded(ref.name)) continue;
    out.push({ remote: ref, local: spec.dst === '' ? null : checkedLocal(localName(spec.dst), spec), force: spec.force });
  }
  return out;
}

/**
 * Refuses a listing that holds a ref name git's rules reject (`refs/heads/../../config`): such a
 * name must never reach a path, and a server that sends one is not to be trusted with the rest.
 */
export function checkRemoteRefNames(refs: readonly RemoteRef[], remote: string): void {
  for (const ref of refs) {
    for (const name of ref.symrefTarget !== undefined ? [ref.name, ref.symrefTarget] : [ref.name]) {
      if (name === 'HEAD') continue;
      const reason = name.startsWith('refs/') ? checkRefFormat(name) : 'is not HEAD and not under refs/';
      if (reason !== null) {
        throw new GitError('client', 'bad-ref-name', `${remote} advertised the invalid ref name ${JSON.stringify(name)}: it ${reason}`);
      }
    }
  }
}

function checkedLocal(name: string, spec: Refspec): string {
  const reason = name.startsWith('refs/') ? checkRefFormat(name) : 'is not under refs/';
  if (reason !== null) throw new GitError('client', 'bad-ref-name', `refspec '${spec.text}' maps to the invalid ref name '${name}': it ${reason}`);
  return name;
}
