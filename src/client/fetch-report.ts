// The lines `git fetch` prints for each ref (builtin/fetch.c format_display):
//    * [new branch]      feature    -> origin/feature
//      1234567..89abcde  main       -> origin/main
//    + 1234567...89abcde topic      -> origin/topic  (forced update)
//    ! [rejected]        v1         -> v1  (would clobber existing tag)
//    - [deleted]         (none)     -> origin/gone
// and FETCH_HEAD's lines: "<id>\t[not-for-merge]\t<kind> '<name>' of <url>".

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

/**
 * The report as git prints it to stderr: "From <url>" before the first ref line, then the lines
 * with git's column widths (remote names padded to at least 10). Warnings (strings) come out where
 * they stand: git warns of refs it rejects for a shallow update while it stores the others.
 */
export function formatReport(url: string, entries: readonly (RefLine | string)[], abbrev = 7,
  columns = Number(process.env.COLUMNS) || 80): string {
  const summaryWidth = 2 * abbrev + 3;
  let refWidth = 10;
  for (const l of entries) {
    if (typeof l === 'string' || l.widthless || l.remote === 'HEAD') continue;
    const r = prettifyRefName(l.remote).length;
    const len = 21 + r + 4 + prettifyRefName(l.local).length;
    if (len < columns && r > refWidth) refWidth = r;
  }
  let out = '', from = `From ${url}\n`;
  for (const l of entries) {
    if (typeof l === 'string') {
      out += l;
      continue;
    }
    const remote = prettifyRefName(l.remote).padEnd(refWidth);
    out += `${from} ${l.code} ${l.summary.padEnd(summaryWidth)} ${remote} -> ${prettifyRefName(l.local)}${l.error ? `  (${l.error})` : ''}\n`;
    from = '';
  }
  return out;
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
