// Reading config files into entries, as git's config sequence does: each file parsed (parse.ts),
// its `include.path` files, and `includeIf.<condition>.path` files whose condition holds (git's
// gitdir:, gitdir/i: and onbranch:), expanded in place, every entry marked with the file it came
// from and the scope git reports for it (`git config --show-scope`). Files are read through a
// generator that yields the paths it wants, so that one reading serves both the sync and the
// async loader.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { WM_CASEFOLD, WM_PATHNAME, wildmatch } from '../core/wildmatch.js';
import { interpolatePath } from './interpolate-path.js';
import { fromBinary, parseConfig } from './parse.js';
import { parseBool } from './values.js';

/** Where an entry was read, as `git config --show-scope` names it. */
export type ConfigScope = 'system' | 'global' | 'local' | 'worktree' | 'command';

export interface ConfigEntry {
  /** Lower-cased section name. */
  section: string;
  subsection: string | null;
  /** Lower-cased key name. */
  key: string;
  /** null for a key written without `=` (which reads as boolean true). */
  value: string | null;
  file: string;
  line: number;
  /** The scope of the file read (an included file's is its includer's). */
  scope: ConfigScope;
}

/** Where a text was read: its file (relative includes are found from it) and the scope it has. */
export interface ConfigSource {
  file: string;
  scope: ConfigScope;
  /** How a parse error names it, when not "file <file>": "standard input", "blob <name>". */
  where?: string;
}

export interface ReadOptions {
  /** Environment to take $HOME (for `~/` in include paths and gitdir: patterns) from. */
  env: NodeJS.ProcessEnv;
  /** Follow include.path, as git does but for a file named on `git config`'s command line. */
  includes: boolean;
  /** The repository's git directory, which includeIf conditions are about; none outside one (they do not hold). */
  gitDir?: string;
}

/** A request for a file's bytes; the driver answers with null when the file does not exist. */
export type Read = { path: string };
export type Loader<T> = Generator<Read, T, Buffer | null>;

const MAX_INCLUDE_DEPTH = 10;

/** A file's entries, includes expanded; none when it does not exist. */
export function* fileEntries(file: string, scope: ConfigScope, opts: ReadOptions): Loader<ConfigEntry[]> {
  const data = yield { path: file };
  return data ? yield* textEntries(data.toString('latin1'), { file, scope }, opts) : [];
}

/** The entries of one file's text (a binary string), with each `include.path` replaced in place by its file's. */
export function* textEntries(text: string, source: ConfigSource, opts: ReadOptions, depth = 0): Loader<ConfigEntry[]> {
  const { file, scope } = source;
  const parsed = parseConfig(text, file, source.where);
  const out: ConfigEntry[] = [];
  for (const p of parsed.entries) {
    const s = parsed.sections[p.sectionIndex];
    const e: ConfigEntry = {
      section: s ? s.section : '',
      subsection: s && s.subsection !== null ? fromBinary(s.subsection) : null,
      key: p.key,
      value: p.value === null ? null : fromBinary(p.value),
      file,
      line: p.line,
      scope,
    };
    out.push(e);
    if (!opts.includes || e.key !== 'path') continue;
    const included = e.section === 'include' && e.subsection === null
      || e.section === 'includeif' && e.subsection !== null && (yield* conditionHolds(e.subsection, file, opts));
    if (!included) continue;
    if (e.value === null) throw new GitError('config', 'bad-value', `missing value for 'include.path' in file ${file} line ${e.line}`);
    const target = includeTarget(e.value, file, opts.env);
    if (depth + 1 > MAX_INCLUDE_DEPTH) {
      throw new GitError('config', 'include-depth',
        `exceeded maximum include depth (${MAX_INCLUDE_DEPTH}) while including ${target} from ${file}`);
    }
    // git ignores an include whose file is missing.
    const data = yield { path: target };
    if (data) out.push(...yield* textEntries(data.toString('latin1'), { file: target, scope }, opts, depth + 1));
  }
  return out;
}

/**
 * git's include_condition_is_true: `gitdir:<pattern>` (`gitdir/i:` ignoring case) when the git
 * directory matches, `onbranch:<pattern>` when HEAD names a branch that matches; any other
 * condition (hasconfig:remote.*.url: among them) never holds.
 */
function* conditionHolds(condition: string, file: string, opts: ReadOptions): Loader<boolean> {
  if (!opts.gitDir) return false;
  const gitdir = /^gitdir(\/i)?:/.exec(condition);
  if (gitdir) return gitDirMatches(condition.slice(gitdir[0].length), gitdir[1] !== undefined, file, opts);
  if (!condition.startsWith('onbranch:')) return false;
  const head = yield { path: path.join(opts.gitDir, 'HEAD') };
  const branch = head && /^ref: refs\/heads\/(.+?)\s*$/.exec(head.toString('utf8'))?.[1];
  if (!branch) return false;
  return wildmatchText(withTrailingStars(condition.slice('onbranch:'.length)), branch, WM_PATHNAME);
}

/**
 * git's include_by_gitdir: the pattern expanded (interpolate_path, $HOME by its real path), `./`
 * taken from the including file's directory, "**" and a slash before a relative one and "**" after
 * a trailing slash, matched against the git directory's real path, then its absolute one (a
 * pattern naming it through a symbolic link).
 */
function gitDirMatches(condition: string, icase: boolean, file: string, opts: ReadOptions): boolean {
  // A pattern git cannot expand (no $HOME, an unknown user) is matched as it is.
  let pattern = interpolatePath(condition, opts.env, realPath) ?? condition;
  let prefix = 0;
  if (pattern.startsWith('./')) {
    const dir = path.dirname(realPath(file));
    pattern = dir + pattern.slice(1);
    prefix = dir.length + 1;
  } else if (!path.isAbsolute(pattern)) {
    pattern = `**/${pattern}`;
  }
  pattern = withTrailingStars(pattern);
  const flags = WM_PATHNAME | (icase ? WM_CASEFOLD : 0);
  for (const dir of [realPath(opts.gitDir!), path.resolve(opts.gitDir!)]) {
    if (dir.length < prefix) continue;
    const literal = (s: string) => (icase ? s.slice(0, prefix).toLowerCase() : s.slice(0, prefix));
    if (literal(pattern) === literal(dir) && wildmatchText(pattern.slice(prefix), dir.slice(prefix), flags)) return true;
  }
  return false;
}

function withTrailingStars(pattern: string): string {
  return pattern.endsWith('/') ? `${pattern}**` : pattern;
}

function wildmatchText(pattern: string, text: string, flags: number): boolean {
  const p = Buffer.from(pattern), t = Buffer.from(text);
  return wildmatch(p, 0, p.length, t, 0, t.length, flags);
}

/** `p`'s real path, else (it does not exist) its absolute one. */
export function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** git's handle_path_include: the path expanded, a relative one found from the including file's directory. */
function includeTarget(value: string, from: string, env: NodeJS.ProcessEnv): string {
  const expanded = interpolatePath(value, env);
  // git reports this and then the file's line as a bad one; the first says what is wrong.
  if (expanded === null) throw new GitError('config', 'bad-value', `could not expand include path '${value}'`);
  return path.resolve(path.dirname(from), expanded);
}

/** The system file git reads, unless $GIT_CONFIG_NOSYSTEM: $GIT_CONFIG_SYSTEM, else /etc/gitconfig. */
export function systemFile(env: NodeJS.ProcessEnv): string | null {
  return isTrue(env.GIT_CONFIG_NOSYSTEM) ? null : systemFileTarget(env);
}

/** The file `git config --system` reads and writes, whatever $GIT_CONFIG_NOSYSTEM says. */
export function systemFileTarget(env: NodeJS.ProcessEnv): string {
  return env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig';
}

/**
 * The global files git reads, in its order: $GIT_CONFIG_GLOBAL alone when set, else
 * $XDG_CONFIG_HOME/git/config (~/.config/git/config) and then ~/.gitconfig.
 */
export function globalFiles(env: NodeJS.ProcessEnv): string[] {
  if (env.GIT_CONFIG_GLOBAL !== undefined) return [env.GIT_CONFIG_GLOBAL];
  const files: string[] = [];
  const xdg = xdgFile(env);
  if (xdg) files.push(xdg);
  if (env.HOME) files.push(path.join(env.HOME, '.gitconfig'));
  return files;
}

/**
 * The file `git config --global` reads and writes (git_global_config): $GIT_CONFIG_GLOBAL, else
 * ~/.gitconfig unless only the XDG file can be read; null without $HOME.
 */
export function globalFileTarget(env: NodeJS.ProcessEnv): string | null {
  if (env.GIT_CONFIG_GLOBAL !== undefined) return env.GIT_CONFIG_GLOBAL;
  if (!env.HOME) return null;
  const home = path.join(env.HOME, '.gitconfig');
  const xdg = xdgFile(env);
  return !readable(home) && xdg && readable(xdg) ? xdg : home;
}

function xdgFile(env: NodeJS.ProcessEnv): string | null {
  const xdg = env.XDG_CONFIG_HOME || (env.HOME ? path.join(env.HOME, '.config') : null);
  return xdg ? path.join(xdg, 'git', 'config') : null;
}

function readable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && parseBool(v) === true;
}

/** Runs a loader with synchronous reads. */
export function runSync<T>(gen: Loader<T>): T {
  let step = gen.next();
  while (!step.done) {
    const file = step.value.path;
    let data: Buffer | null;
    try {
      data = fs.readFileSync(file);
    } catch (e) {
      data = missingOrThrow(file, e);
    }
    step = gen.next(data);
  }
  return step.value;
}

/** Runs a loader with asynchronous reads. */
export async function runAsync<T>(gen: Loader<T>): Promise<T> {
  let step = gen.next();
  while (!step.done) {
    const file = step.value.path;
    step = gen.next(await fs.promises.readFile(file).catch((e: unknown) => missingOrThrow(file, e)));
  }
  return step.value;
}

function missingOrThrow(file: string, e: unknown): null {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  throw new GitError('config', 'io', `cannot read config file ${file}: ${(e as Error).message}`, { cause: e });
}
