// Maps a client's repository path (from a URL or a git:// request) to a git directory strictly
// inside the served root, as `git daemon --base-path` should: every segment is a plain name (no
// `.`/`..`, nothing starting with a dot, no NUL or backslash, nothing percent-encoded into a
// slash), the candidate is `<root>/<path>`, `<root>/<path>/.git` or `<root>/<path>.git`, and its
// real path (all symlinks resolved) must still lie under the root's real path. A repository is
// served only with export-all or a `git-daemon-export-ok` file in it, as git daemon does.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { isGitDirectory } from '../repository/discover.js';

export interface ResolvedRepository {
  /** The path as the client named it, normalised: "group/project.git". */
  readonly name: string;
  readonly gitDir: string;
}

export interface ResolveOptions {
  readonly exportAll: boolean;
}

/** Why a path was refused; the message never reveals whether something exists outside the root. */
export type ResolveFailure = 'bad-path' | 'not-found';

/** Segments of a URL path, each percent-decoded; null when any is not a plain name. */
export function urlSegments(urlPath: string): string[] | null {
  const raw = urlPath.split('/').filter(s => s !== '');
  const out: string[] = [];
  for (const r of raw) {
    let s: string;
    try {
      s = decodeURIComponent(r);
    } catch {
      return null;
    }
    if (!isPlainName(s)) return null;
    out.push(s);
  }
  return out;
}

/** Segments of a git:// path (not percent-encoded); null when any is not a plain name. */
export function daemonSegments(requestPath: string): string[] | null {
  const out = requestPath.split('/').filter(s => s !== '');
  return out.every(isPlainName) ? out : null;
}

/**
 * The segments of an absolute path inside `root` (the relay's requests over serve's Unix socket name
 * the repository as the process that relays them was given it), or null outside it.
 */
export function segmentsUnder(root: string, requestPath: string): string[] | null {
  if (!requestPath.startsWith(root + '/')) return null;
  return daemonSegments(requestPath.slice(root.length));
}

function isPlainName(s: string): boolean {
  return s.length > 0 && s.length <= 255 && !s.startsWith('.') && !/[\\\0/]/.test(s) && !/[\x00-\x1f\x7f]/.test(s);
}

/** The root's real path, resolved once by the caller and reused for every request. */
export function realRoot(root: string): string {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(root));
  } catch {
    throw new GitError('server', 'no-root', `cannot serve '${root}': no such directory`);
  }
  if (!fs.statSync(real).isDirectory()) throw new GitError('server', 'no-root', `cannot serve '${root}': not a directory`);
  return real;
}

export function resolveRepository(root: string, segments: string[] | null, opts: ResolveOptions): ResolvedRepository | ResolveFailure {
  if (!segments || segments.length === 0) return 'bad-path';
  const base = path.join(root, ...segments);
  const candidates = [base + '/.git', base, base + '.git'];
  for (const candidate of candidates) {
    if (!isGitDirectory(candidate)) continue;
    let real: string;
    try {
      real = fs.realpathSync(candidate);
    } catch {
      continue;
    }
    if (!real.startsWith(root + path.sep)) return 'bad-path';
    if (!opts.exportAll && !fs.existsSync(path.join(real, 'git-daemon-export-ok'))) return 'not-found';
    return { name: segments.join('/'), gitDir: real };
  }
  return 'not-found';
}
