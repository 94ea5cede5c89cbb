// The lines `git fetch` prints for each ref (builtin/fetch.c format_display):
//    * [new branch]      feature    -> origin/feature
//      1234567..89abcde  main       -> origin/main
//    + 1234567...89abcde topic      -> origin/topic  (forced update)
//    ! [rejected]        v1         -> v1  (would clobber existing tag)
//    - [deleted]         (none)     -> origin/gone
// or, with fetch.output=compact, "main -> origin/*" and "v1 -> *";
// and FETCH_HEAD's lines: "<id>\t[not-for-merge]\t<kind> '<name>' of <url>".

import { GitError } from '../core/errors.js';

export interface RefLine {
  readonly code: string;
  readonly summary: string;
  /** The remote ref's full name, or "(none)" for a deletion. */
  readonly remote: string;
  /** The local ref's full name. */
  readonly local: string;
  readonly error?: string;
  /** Left out of the column width, as git leaves out refs that only go to FETCH_HEAD. */
  readonly widthless?: boolean;
}

/** git's prettify_refname: refs/heads/, refs/tags/ and refs/remotes/ are left out. */
export function prettifyRefName(name: string): string {
  for (const prefix of ['refs/heads/', 'refs/tags/', 'refs/remotes/']) if (name.startsWith(prefix)) return name.slice(prefix.length);
  return name;
}

/**
 * git's automatic abbreviation length (core.abbrev=auto): half the bits needed to count the packed
 * objects, rounded up, and never under 7. (git may lengthen one further to make it unique, which
 * at this length practically never happens.)
 */
export function abbrevLength(packedObjects: number): number {
  const msb = packedObjects > 0 ? Math.floor(Math.log2(packedObjects)) : 0;
  return Math.max(7, Math.ceil((msb + 1) / 2));
}

/** git's fetch.output: each ref's names in full, or with the part they share as `*` (compact). */
export type ReportFormat = 'full' | 'compact';

/** fetch.output's value as git's prepare_format_display reads it (either case), else its fatal error. */
export function reportFormat(value: string | undefined): ReportFormat {
  const format = (value ?? 'full').toLowerCase();
  if (format === 'full' || format === 'compact') return format;
  throw new GitError('client', 'bad-config', `invalid value for 'fetch.output': '${value}'`);
}

/**
 * The report as git prints it to stderr: "From <url>" before the first ref line, then the lines
 * with git's column widths (remote names padded to at least 10, widened for the ref lines, not
 * for the prunes git prints before it measures them). Warnings (strings) come out where they
 * stand: git warns of refs it rejects for a shallow update while it stores the others.
 */
export function formatReport(url: string, entries: readonly (RefLine | string)[], abbrev = 7, format: ReportFormat = 'full',
  columns = Number(process.env.COLUMNS) || 80): string {
  const summaryWidth = 2 * abbrev + 3;
  // git's adjust_refcol_width: a compact line is judged without its local name, against less room.
  const compact = format === 'compact';
  const room = compact ? Math.floor((columns * 2) / 3) : columns;
  let refWidth = 10;
  for (const l of entries) {
    if (typeof l === 'string' || l.widthless || l.remote === 'HEAD' || l.code === '-') continue;
    const r = prettifyRefName(l.remote).length;
    const len = 21 + r + 4 + (compact ? 0 : prettifyRefName(l.local).length);
    if (len < room && r > refWidth) refWidth = r;
  }
  let out = '', from = `From ${url}\n`;
  for (const l of entries) {
    if (typeof l === 'string') {
      out += l;
      continue;
    }
    const names: [string, string] = [prettifyRefName(l.remote), prettifyRefName(l.local)];
    const [remote, local] = compact ? compactNames(...names) : names;
    const width = l.code === '-' ? 10 : refWidth;
    out += `${from} ${l.code} ${l.summary.padEnd(summaryWidth)} ${remote.padEnd(width)} -> ${local}${l.error ? `  (${l.error})` : ''}\n`;
    from = '';
  }
  return out;
}

/**
 * git's print_compact: the same names as `*` on the right; else the local name where it stands
 * whole in the remote one, or the remote name where it stands whole in the local one, as `*`.
 */
function compactNames(remote: string, local: string): [string, string] {
  if (remote === local) return [remote, '*'];
  const r = starred(remote, local);
  return r !== null ? [r, local] : [remote, starred(local, remote) ?? local];
}

/**
 * git's find_and_replace: `needle` in `haystack` (at its end, else where it first stands) as `*`,
 * when it is whole there, between slashes or the ends; null otherwise.
 */
function starred(haystack: string, needle: string): string | null {
  const at = haystack.endsWith(needle) ? haystack.length - needle.length : haystack.indexOf(needle);
  if (at < 0) return null;
  if (at > 0 && haystack[at - 1] !== '/') return null;
  if (haystack.length - at > needle.length && haystack[at + needle.length] !== '/') return null;
  return `${haystack.slice(0, at)}*${haystack.slice(at + needle.length)}`;
}

/** The URL as FETCH_HEAD names it: without trailing slashes or ".git". */
export function fetchHeadUrl(url: string): string {
  let u = url.replace(/\/+$/, '');
  if (u.length > 4 && u.endsWith('.git')) u = u.slice(0, -4);
  return u;
}

export function fetchHeadLine(oid: string, remoteName: string, forMerge: boolean, url: string): string {
  let kind = '', what = '';
  if (remoteName === 'HEAD') { /* just the URL */ }
  else if (remoteName.startsWith('refs/heads/')) { kind = 'branch'; what = remoteName.slice(11); }
  else if (remoteName.startsWith('refs/tags/')) { kind = 'tag'; what = remoteName.slice(10); }
  else if (remoteName.startsWith('refs/remotes/')) { kind = 'remote-tracking branch'; what = remoteName.slice(13); }
  else what = remoteName;
  const note = `${kind ? `${kind} ` : ''}${what ? `'${what}' of ` : ''}${fetchHeadUrl(url)}`;
  return `${oid}\t${forMerge ? '' : 'not-for-merge'}\t${note}\n`;
}
