// ls-remote: connect, list refs, hang up. The pattern matching is git's tail match: a pattern
// matches a ref whose name ends with it at a '/' boundary, with wildmatch globbing.
import { parseRemoteUrl, type ConnectOptions } from '../transport/index.js';
import { RemoteSession, type RemoteRef } from './session.js';

export interface LsRemoteOptions extends ConnectOptions {
  /** Only refs/heads/ (and/or refs/tags/ with `tags`); both false means everything. */
  readonly heads?: boolean;
  readonly tags?: boolean;
  readonly cwd?: string;
}

export async function lsRemote(url: string, options: LsRemoteOptions = {}): Promise<RemoteRef[]> {
  const prefixes: string[] = [];
  if (options.tags) prefixes.push('refs/tags/');
  if (options.heads) prefixes.push('refs/heads/');
  const session = await RemoteSession.open(parseRemoteUrl(url, options.cwd), options);
  try {
    const refs = await session.listRefs({ prefixes });
    await session.close();
    return refs;
  } catch (e) {
    session.abort();
    throw e;
  }
}

/** git's wildmatch without WM_PATHNAME: `*` also crosses '/'. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeRegExp(pattern[++i]!);
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) { re += '\\['; continue; }
      let body = pattern.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`, 's');
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** git ls-remote's tail_match: `*\/<pattern>` against `/<refname>`. */
export function refMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => true;
  const res = patterns.map((p) => globToRegExp(`*/${p}`));
  return (name) => res.some((re) => re.test(`/${name}`));
}
