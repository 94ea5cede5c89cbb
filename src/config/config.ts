// A repository's configuration: `<commonDir>/config` (the git directory's own in an ordinary
// repository, the shared one's in a linked work tree) with its `include.path` files expanded in
// place, optionally preceded by the system and global files, and followed (extensions.worktreeConfig)
// by the work tree's `$GIT_DIR/config.worktree`. Reading looks at all of them (the last value wins);
// writing touches only that one `config` file.
//
// Edits are applied to the in-memory text at once (so `get` sees them) and remembered; `save`
// takes `config.lock`, re-reads the file, replays the edits on what is there now, and renames the
// lock over the file, so a concurrent writer's changes are kept rather than overwritten.
import fs from 'node:fs';
import path from 'node:path';
import { commonDirFrom, namedCommonDirFrom } from '../core/common-dir.js';
import { GitError } from '../core/errors.js';
import { LockFile } from '../core/lock-file.js';
import { commandLineEntries } from './command-line.js';
import { applyEdit, type ConfigEdit } from './edit.js';
import { parseConfig } from './parse.js';
import { parseBool, parseSigned } from './values.js';

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
}

export interface ConfigLoadOptions {
  /**
   * Also read the system file ($GIT_CONFIG_SYSTEM or /etc/gitconfig, unless $GIT_CONFIG_NOSYSTEM)
   * and the global ones ($GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config and ~/.gitconfig),
   * and after the repository's file the command line's (`tsgit -c`, $GIT_CONFIG_PARAMETERS).
   */
  global?: boolean;
  /** Environment to take those variables and $HOME from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** What gitDir's `commondir` file names (else gitDir), when the repository has read it. */
  namedCommonDir?: string;
}

const MAX_INCLUDE_DEPTH = 10;

// File contents as one-char-per-byte strings (see parse.ts); names and values are decoded to
// UTF-8 on the way out and encoded on the way in.
const toBinary = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const fromBinary = (s: string) => Buffer.from(s, 'latin1').toString('utf8');

/** A request for a file's bytes; the driver answers with null when the file does not exist. */
type Read = { path: string };
type Loader<T> = Generator<Read, T, Buffer | null>;

export class Config {
  /** `<commonDir>/config`, the file `save` writes. */
  readonly path: string;
  private localText: string;
  private entries: ConfigEntry[] = [];
  private pending: ConfigEdit[] = [];
  /** `worktreeFile`'s entries, once read (only while extensions.worktreeConfig is on). */
  private worktree: ConfigEntry[] | null = null;

  private constructor(file: string, localText: string, private readonly outer: ConfigEntry[],
    private readonly commandLine: ConfigEntry[], private readonly env: NodeJS.ProcessEnv,
    /** `$GIT_DIR/config.worktree`: the work tree's own, not the common directory's. */
    private readonly worktreeFile: string) {
    this.path = file;
    this.localText = localText;
  }

  static loadSync(gitDir: string, opts: ConfigLoadOptions = {}): Config {
    return runSync(Config.loader(gitDir, opts));
  }

  static async load(gitDir: string, opts: ConfigLoadOptions = {}): Promise<Config> {
    const gen = Config.loader(gitDir, opts);
    let step = gen.next();
    while (!step.done) {
      const file = step.value.path;
      step = gen.next(await fs.promises.readFile(file).catch((e: unknown) => missingOrThrow(file, e)));
    }
    return step.value;
  }

  private static *loader(gitDir: string, opts: ConfigLoadOptions): Loader<Config> {
    const env = opts.env ?? process.env;
    const outer: ConfigEntry[] = [];
    if (opts.global) {
      for (const file of globalFiles(env)) {
        const data = yield { path: file };
        if (data) outer.push(...yield* expand(data.toString('latin1'), file, 0, env));
      }
    }
    // A linked work tree's git directory has no config of its own: git reads the common one's.
    let named = opts.namedCommonDir;
    if (named === undefined) {
      const commondir = yield { path: path.join(gitDir, 'commondir') };
      named = namedCommonDirFrom(gitDir, commondir && commondir.toString('utf8'));
    }
    const file = path.join(commonDirFrom(named, env), 'config');
    const data = yield { path: file };
    const commandLine = opts.global ? commandLineEntries(env) : [];
    const config = new Config(file, data ? data.toString('latin1') : '', outer, commandLine, env, path.join(gitDir, 'config.worktree'));
    const local = yield* expand(config.localText, file, 0, env);
    if (worktreeConfigOn(local)) config.worktree = yield* fileEntries(config.worktreeFile, env);
    config.entries = config.combine(local);
    return config;
  }

  /**
   * All entries in git's order: the outer files, the repository's (`local`), config.worktree
   * after it while `local` turns extensions.worktreeConfig on, then the command line's. Every
   * rebuild goes through here, so that an edit of the repository's file keeps config.worktree's
   * values and their precedence (and one turning the extension on reads the file).
   */
  private combine(local: ConfigEntry[]): ConfigEntry[] {
    if (worktreeConfigOn(local)) {
      this.worktree ??= runSync(fileEntries(this.worktreeFile, this.env));
      local = [...local, ...this.worktree];
    }
    return [...this.outer, ...local, ...this.commandLine];
  }

  /** Every variable in file order, as `git config -l` lists them. */
  list(): ConfigEntry[] {
    return this.entries.slice();
  }

  /** The last value of the variable, '' for a key without `=`, undefined when it is not set. */
  get(section: string, subsection: string | null, key: string): string | undefined {
    const e = this.last(section, subsection, key);
    return e ? e.value ?? '' : undefined;
  }

  getAll(section: string, subsection: string | null, key: string): string[] {
    return this.matching(section, subsection, key).map((e) => e.value ?? '');
  }

  getBool(section: string, subsection: string | null, key: string): boolean | undefined {
    const e = this.last(section, subsection, key);
    if (!e) return undefined;
    const b = parseBool(e.value);
    if (b === null) {
      throw new GitError('config', 'bad-value',
        `bad boolean config value '${e.value}' for '${displayName(e)}' in file ${e.file} line ${e.line}`);
    }
    return b;
  }

  /** An integer with optional k/m/g unit (1024-based), within Number.MAX_SAFE_INTEGER. */
  getInt(section: string, subsection: string | null, key: string): number | undefined {
    const e = this.last(section, subsection, key);
    if (!e) return undefined;
    const n = parseSigned(e.value);
    if (typeof n !== 'bigint') {
      throw new GitError('config', 'bad-value',
        `bad numeric config value '${e.value ?? ''}' for '${displayName(e)}' in file ${e.file} line ${e.line}: ${n}`);
    }
    return Number(n);
  }

  /** Sets one value, replacing every value the variable had in this repository's file. */
  set(section: string, subsection: string | null, key: string, value: string): void {
    this.edit({ op: 'set', section, subsection, key, value });
  }

  /** Adds a value after the existing ones (for multi-valued keys such as remote.*.fetch). */
  add(section: string, subsection: string | null, key: string, value: string): void {
    this.edit({ op: 'add', section, subsection, key, value });
  }

  /** Removes every value of the variable from this repository's file. */
  unset(section: string, subsection: string | null, key: string): void {
    this.edit({ op: 'unset', section, subsection, key });
  }

  /** Writes pending edits to `<commonDir>/config` through `config.lock`; nothing to do if none. */
  save(): void {
    if (this.pending.length === 0) return;
    const lock = LockFile.acquire(this.path, `config file ${this.path}`, 'config');
    try {
      let text = '';
      let mode: number | null = null;
      try {
        text = fs.readFileSync(this.path).toString('latin1');
        mode = fs.statSync(this.path).mode & 0o7777;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      for (const edit of this.pending) text = applyEdit(text, this.path, edit);
      lock.write(Buffer.from(text, 'latin1'));
      if (mode !== null) lock.chmod(mode);
      lock.commit();
      this.localText = text;
      this.pending = [];
      this.reload();
    } finally {
      lock.rollback();
    }
  }

  private edit(edit: ConfigEdit): void {
    const binary: ConfigEdit = {
      ...edit,
      subsection: edit.subsection === null ? null : toBinary(edit.subsection),
      ...(edit.op === 'unset' ? {} : { value: toBinary(edit.value) }),
    } as ConfigEdit;
    this.localText = applyEdit(this.localText, this.path, binary);
    this.pending.push(binary);
    this.reload();
  }

  private reload(): void {
    this.entries = this.combine(runSync(expand(this.localText, this.path, 0, this.env)));
  }

  private matching(section: string, subsection: string | null, key: string): ConfigEntry[] {
    const s = section.toLowerCase(), k = key.toLowerCase();
    return this.entries.filter((e) => e.section === s && e.key === k && e.subsection === subsection);
  }

  private last(section: string, subsection: string | null, key: string): ConfigEntry | undefined {
    const all = this.matching(section, subsection, key);
    return all[all.length - 1];
  }
}

function displayName(e: ConfigEntry): string {
  if (e.subsection !== null) return `${e.section}.${e.subsection}.${e.key}`;
  return e.section === '' ? e.key : `${e.section}.${e.key}`;
}

/** extensions.worktreeConfig as the repository's config (`local`) last sets it. */
function worktreeConfigOn(local: readonly ConfigEntry[]): boolean {
  const e = local.filter((x) => x.section === 'extensions' && x.subsection === null && x.key === 'worktreeconfig').at(-1);
  return e !== undefined && (e.value === null || parseBool(e.value) === true);
}

/** A file's entries, includes expanded; none when it does not exist. */
function* fileEntries(file: string, env: NodeJS.ProcessEnv): Loader<ConfigEntry[]> {
  const data = yield { path: file };
  return data ? yield* expand(data.toString('latin1'), file, 0, env) : [];
}

/** The entries of one file's text, with each `include.path` replaced in place by its file's. */
function* expand(text: string, file: string, depth: number, env: NodeJS.ProcessEnv): Loader<ConfigEntry[]> {
  const parsed = parseConfig(text, file);
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
    };
    out.push(e);
    if (e.section !== 'include' || e.subsection !== null || e.key !== 'path') continue;
    if (e.value === null) throw new GitError('config', 'bad-value', `missing value for 'include.path' in file ${file} line ${e.line}`);
    const target = includeTarget(e.value, file, env);
    if (depth + 1 > MAX_INCLUDE_DEPTH) {
      throw new GitError('config', 'include-depth',
        `exceeded maximum include depth (${MAX_INCLUDE_DEPTH}) while including ${target} from ${file}`);
    }
    // git ignores an include whose file is missing.
    const data = yield { path: target };
    if (data) out.push(...yield* expand(data.toString('latin1'), target, depth + 1, env));
  }
  return out;
}

function includeTarget(value: string, from: string, env: NodeJS.ProcessEnv): string {
  if (value === '~' || value.startsWith('~/')) {
    if (!env.HOME) throw new GitError('config', 'bad-value', `cannot expand '${value}' in file ${from}: HOME is not set`);
    return path.join(env.HOME, value.slice(1));
  }
  return path.resolve(path.dirname(from), value);
}

function globalFiles(env: NodeJS.ProcessEnv): string[] {
  const files: string[] = [];
  if (!isTrue(env.GIT_CONFIG_NOSYSTEM)) files.push(env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig');
  if (env.GIT_CONFIG_GLOBAL !== undefined) {
    files.push(env.GIT_CONFIG_GLOBAL);
  } else {
    const xdg = env.XDG_CONFIG_HOME || (env.HOME ? path.join(env.HOME, '.config') : null);
    if (xdg) files.push(path.join(xdg, 'git', 'config'));
    if (env.HOME) files.push(path.join(env.HOME, '.gitconfig'));
  }
  return files;
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && parseBool(v) === true;
}

function runSync<T>(gen: Loader<T>): T {
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

function missingOrThrow(file: string, e: unknown): null {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  throw new GitError('config', 'io', `cannot read config file ${file}: ${(e as Error).message}`, { cause: e });
}
