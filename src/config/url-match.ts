// Variables that may be set for a URL, `<section>.<url>.<key>` (git-config(1) "http.<url>.*",
// git's urlmatch.c): a subsection applies to a URL when the scheme is the same, the host the same
// (a `*` label in the pattern matches one label), the port the same (default ports implied), the
// pattern's path the URL's or a prefix of it ending at a `/`, and the pattern's user, when it has
// one, the URL's. Entries are read in config order, and one less specific than an entry already
// taken for the same key is passed over (urlmatch_config_entry); more specific means a longer
// host, then an exact host over a wildcard, then a longer path, then a user named. The plain
// `<section>.<key>` applies to every URL, least specifically.
import type { Config, ConfigEntry } from './config.js';

interface Specificity {
  host: number;
  exactHost: boolean;
  path: number;
  user: boolean;
}

const LEAST: Specificity = { host: 0, exactHost: false, path: 0, user: false };

function compare(a: Specificity, b: Specificity): number {
  if (a.host !== b.host) return a.host - b.host;
  if (a.exactHost !== b.exactHost) return a.exactHost ? 1 : -1;
  if (a.path !== b.path) return a.path - b.path;
  if (a.user !== b.user) return a.user ? 1 : -1;
  return 0;
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443', 'ftp:': '21', 'ssh:': '22', 'git:': '9418' };
const portOf = (u: URL): string => u.port || DEFAULT_PORT[u.protocol] || '';
/** A path normalized for prefix matching: always starting with `/`, no trailing `/` but the root's. */
const pathOf = (u: URL): string => (u.pathname.replace(/\/+$/, '') || '/');

/** How specifically `pattern` (a subsection) matches `url`, or null when it does not. */
export function urlMatch(pattern: string, url: URL): Specificity | null {
  let p: URL;
  try {
    p = new URL(pattern);
  } catch {
    return null;
  }
  if (p.protocol !== url.protocol) return null;
  if (p.username && decodeURIComponent(p.username) !== decodeURIComponent(url.username)) return null;
  const want = p.hostname.toLowerCase().split('.');
  const have = url.hostname.toLowerCase().split('.');
  if (want.length !== have.length || want.some((label, i) => label !== '*' && label !== have[i])) return null;
  if (portOf(p) !== portOf(url)) return null;
  const prefix = pathOf(p), full = pathOf(url);
  if (prefix !== '/' && full !== prefix && !full.startsWith(`${prefix}/`)) return null;
  return { host: p.hostname.length, exactHost: !want.includes('*'), path: prefix === '/' ? 0 : prefix.length, user: p.username !== '' };
}

/** Every value of `<section>[.<url>].<key>` that applies to `url`, in the order git takes them (null: no `=`). */
export function urlMatchedValues(config: Config, section: string, key: string, url: URL): (string | null)[] {
  const out: (string | null)[] = [];
  let best: Specificity | null = null;
  for (const e of config.list()) {
    if (e.section !== section || e.key !== key) continue;
    const spec = e.subsection === null ? LEAST : urlMatch(e.subsection, url);
    if (spec === null || (best !== null && compare(spec, best) < 0)) continue;
    best = spec;
    out.push(e.value);
  }
  return out;
}

/** A multi-valued variable's list for `url`, where an empty value empties the list (http.extraHeader, credential.helper). */
export function urlMatchedList(config: Config, section: string, key: string, url: URL): string[] {
  const out: string[] = [];
  for (const v of urlMatchedValues(config, section, key, url)) {
    if (v === '') out.length = 0;
    else if (v !== null) out.push(v);
  }
  return out;
}

/** A single-valued variable for `url`: the last value taken (null: no `=`), or undefined. */
export function urlMatchedValue(config: Config, section: string, key: string, url: URL): string | null | undefined {
  return urlMatchedValues(config, section, key, url).at(-1);
}

/**
 * For each key of `section` (or only `key`), the entry whose value git's urlmatch_config_entry
 * takes for `url` (`git config --get-urlmatch`): the last of the most specific ones.
 */
export function bestUrlMatches(entries: readonly ConfigEntry[], section: string, key: string | null, url: URL): Map<string, ConfigEntry> {
  const best = new Map<string, { entry: ConfigEntry; spec: Specificity }>();
  for (const e of entries) {
    if (e.section !== section || (key !== null && e.key !== key)) continue;
    const spec = e.subsection === null ? LEAST : urlMatch(e.subsection, url);
    if (spec === null) continue;
    const taken = best.get(e.key);
    if (taken && compare(spec, taken.spec) < 0) continue;
    best.set(e.key, { entry: e, spec });
  }
  return new Map([...best].map(([k, v]) => [k, v.entry]));
}
