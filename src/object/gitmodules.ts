// What fsck refuses in a .gitmodules file (git's fsck_gitmodules_fn and submodule-config.c's
// check_submodule_name / check_submodule_url): a submodule name that climbs out with `..`, a URL
// or path that a git command would take for an option (`-...`), a URL that smuggles a newline
// (percent-encoded or not) into a credential request or escapes its root with leading `../`
// before a `:` or `/`, and an `update = !command`. The file's syntax is git's config syntax,
// parsed by the caller (config/gitmodules.ts); this module judges the variables.
import { FsckReport, type FsckOptions, type FsckProblem } from './fsck.js';

export interface GitmodulesVariable {
  /** Lower-cased section name. */
  readonly section: string;
  readonly subsection: string | null;
  /** Lower-cased key. */
  readonly key: string;
  /** null for a key without `=`. */
  readonly value: string | null;
}

const isSeparator = (c: string | undefined) => c === '/' || c === '\\';

/** git's check_submodule_name: not empty, and no `..` path component (either separator). */
export function isSafeSubmoduleName(name: string): boolean {
  if (name === '') return false;
  for (let i = 0; i <= name.length; i++) {
    if (i > 0 && !isSeparator(name[i - 1])) continue;
    if (name[i] === '.' && name[i + 1] === '.' && (i + 2 === name.length || isSeparator(name[i + 2]))) return false;
  }
  return true;
}

/** git's url_decode: %XX sequences become their byte; anything else stays. */
function urlDecode(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

const CURL_PREFIXES = ['http::', 'https::', 'ftp::', 'ftps::'];
const CURL_SCHEMES = ['http://', 'https://', 'ftp://', 'ftps://'];

/** git's check_submodule_url. */
export function isSafeSubmoduleUrl(url: string): boolean {
  if (url.startsWith('-')) return false;
  if (url.startsWith('./') || url.startsWith('../') || url.startsWith('git://')) {
    // It may be appended to an http URL and decoded there.
    if (urlDecode(url).includes('\n')) return false;
    let rest = url, dotdots = 0;
    for (;;) {
      if (rest.startsWith('..') && isSeparator(rest[2])) { dotdots++; rest = rest.slice(3); continue; }
      if (rest.startsWith('.') && isSeparator(rest[1])) { rest = rest.slice(2); continue; }
      break;
    }
    // ../../..//example.com or ../:example.com would rewrite the host (CVE-2020-11008).
    return !(dotdots > 0 && (rest[0] === ':' || rest[0] === '/'));
  }
  const prefix = CURL_PREFIXES.find((p) => url.startsWith(p));
  const curl = prefix ? url.slice(prefix.length) : CURL_SCHEMES.some((s) => url.startsWith(s)) ? url : null;
  if (curl === null) return true;
  if (urlDecode(curl).includes('\n')) return false;
  try {
    new URL(curl);
  } catch {
    return false;
  }
  return true;
}

export function checkGitmodulesVariables(variables: Iterable<GitmodulesVariable>, options: FsckOptions = {}): FsckProblem[] {
  const report = new FsckReport(options);
  for (const v of variables) {
    if (v.section !== 'submodule' || v.subsection === null) continue;
    if (!isSafeSubmoduleName(v.subsection)) report.add('gitmodulesName', `disallowed submodule name: ${v.subsection}`);
    if (v.value === null) continue;
    if (v.key === 'url' && !isSafeSubmoduleUrl(v.value)) report.add('gitmodulesUrl', `disallowed submodule url: ${v.value}`);
    if (v.key === 'path' && v.value.startsWith('-')) report.add('gitmodulesPath', `disallowed submodule path: ${v.value}`);
    if (v.key === 'update' && v.value.startsWith('!')) report.add('gitmodulesUpdate', `disallowed submodule update setting: ${v.value}`);
  }
  return report.problems;
}
