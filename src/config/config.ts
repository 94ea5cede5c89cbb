// A repository's configuration: `<commonDir>/config` (the git directory's own in an ordinary
// repository, the shared one's in a linked work tree) with its `include.path` files expanded in
// place, optionally preceded by the system and global files, and followed (extensions.worktreeConfig)
// by the work tree's `$GIT_DIR/config.worktree`. Reading looks at all of them (the last value wins);
// writing touches only that one `config` file.
//
// Edits are applied to the in-memory text at once (so `get` sees them) and remembered; `save`
// takes `config.lock`, re-reads the file, replays the edits on what is there now, and renames the
// lock over the file, so a concurrent writer's changes are kept rather than overwritten.
import path from 'node:path';
import { commonDirFrom, namedCommonDirFrom } from '../core/common-dir.js';
import { GitError } from '../core/errors.js';
import { commandLineEntries } from './command-line.js';
import { parseVariableName, writeVariable, type VariableWrite } from './edit.js';
import { toBinary } from './parse.js';
import { fileEntries, globalFiles, runAsync, runSync, systemFile, textEntries, type ConfigEntry, type Loader, type ReadOptions } from './read.js';
import { parseBool, parseSigned } from './values.js';
import { writeConfigFile } from './write-file.js';

export type { ConfigEntry, ConfigScope } from './read.js';

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
  /** Follow include.path; true by default (`git config --no-includes` turns it off). */
  includes?: boolean;
}

export class Config {
  /** `<commonDir>/config`, the file `save` writes. */
  readonly path: string;
  private localText: string;
  private entries: ConfigEntry[] = [];
  private pending: VariableWrite[] = [];
  /** `worktreeFile`'s entries, once read (only while extensions.worktreeConfig is on). */
  private worktree: ConfigEntry[] | null = null;

  private constructor(file: string, localText: string, private readonly outer: ConfigEntry[],
    private readonly commandLine: ConfigEntry[], private readonly read: ReadOptions,
    /** `$GIT_DIR/config.worktree`: the work tree's own, not the common directory's. */
    private readonly worktreeFile: string) {
    this.path = file;
    this.localText = localText;
  }

  static loadSync(gitDir: string, opts: ConfigLoadOptions = {}): Config {
    return runSync(Config.loader(gitDir, opts));
  }

  static async load(gitDir: string, opts: ConfigLoadOptions = {}): Promise<Config> {
    return runAsync(Config.loader(gitDir, opts));
  }

  private static *loader(gitDir: string, opts: ConfigLoadOptions): Loader<Config> {
    const env = opts.env ?? process.env;
    const read: ReadOptions = { env, includes: opts.includes ?? true, gitDir };
    const outer = opts.global ? yield* outerEntries(read) : [];
    // A linked work tree's git directory has no config of its own: git reads the common one's.
    let named = opts.namedCommonDir;
    if (named === undefined) {
      const commondir = yield { path: path.join(gitDir, 'commondir') };
      named = namedCommonDirFrom(gitDir, commondir && commondir.toString('utf8'));
    }
    const file = path.join(commonDirFrom(named, env), 'config');
    const data = yield { path: file };
    const commandLine = opts.global ? commandLineEntries(env) : [];
    const config = new Config(file, data ? data.toString('latin1') : '', outer, commandLine, read, path.join(gitDir, 'config.worktree'));
    const local = yield* textEntries(config.localText, { file, scope: 'local' }, read);
    if (worktreeConfigOn(local)) config.worktree = yield* fileEntries(config.worktreeFile, 'worktree', read);
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
      this.worktree ??= runSync(fileEntries(this.worktreeFile, 'worktree', this.read));
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

  /** Sets one value, replacing every value the variable had in this repository's file (--replace-all). */
  set(section: string, subsection: string | null, key: string, value: string): void {
    this.edit(section, subsection, key, { value, all: true });
  }

  /** Adds a value after the existing ones (for multi-valued keys such as remote.*.fetch; --add). */
  add(section: string, subsection: string | null, key: string, value: string): void {
    this.edit(section, subsection, key, { value, all: false, matches: () => false });
  }

  /** Removes every value of the variable from this repository's file (--unset-all). */
  unset(section: string, subsection: string | null, key: string): void {
    this.edit(section, subsection, key, { value: null, all: true });
  }

  /** Writes pending edits to `<commonDir>/config` through `config.lock`; nothing to do if none. */
  save(): void {
    if (this.pending.length === 0) return;
    // Replayed on the file as it is now, so that another writer's changes since load are kept.
    this.localText = writeConfigFile(this.path, (current) => this.pending.reduce((t, w) => applyWrite(t, this.path, w), current ?? ''))!;
    this.pending = [];
    this.reload();
  }

  private edit(section: string, subsection: string | null, key: string, change: Omit<VariableWrite, 'name'>): void {
    checkVariableName(section, subsection, key);
    if (change.value?.includes('\0')) {
      throw new GitError('config', 'invalid-value', `config value for '${section}.${key}' contains NUL`);
    }
    const name = `${section}${subsection === null ? '' : `.${subsection}`}.${key}`;
    const write: VariableWrite = {
      ...change,
      name: parseVariableName(toBinary(name)),
      value: change.value === null ? null : toBinary(change.value),
    };
    this.localText = applyWrite(this.localText, this.path, write);
    this.pending.push(write);
    this.reload();
  }

  private reload(): void {
    this.entries = this.combine(runSync(textEntries(this.localText, { file: this.path, scope: 'local' }, this.read)));
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

/** The text after `write`; unchanged when there was nothing to remove. */
function applyWrite(text: string, file: string, write: VariableWrite): string {
  const result = writeVariable(text, file, write);
  return 'text' in result ? result.text : text;
}

/** Throws unless the names can be written and read back as the same variable. */
function checkVariableName(section: string, subsection: string | null, key: string): void {
  const name = `${section}${subsection === null ? '' : `.${subsection}`}.${key}`;
  if (!/^[A-Za-z0-9-]+$/.test(section)) {
    throw new GitError('config', 'invalid-key', `invalid config section name '${section}' in '${name}'`);
  }
  if (subsection !== null && /[\n\0]/.test(subsection)) {
    throw new GitError('config', 'invalid-key', `invalid config subsection in '${JSON.stringify(name)}': newline or NUL`);
  }
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(key)) {
    throw new GitError('config', 'invalid-key', `invalid config key name '${key}' in '${name}'`);
  }
}

/**
 * The entries git reads before a repository's: the system file (scope system), then the global
 * ones (scope global).
 */
export function* outerEntries(read: ReadOptions): Loader<ConfigEntry[]> {
  const out: ConfigEntry[] = [];
  const system = systemFile(read.env);
  if (system) out.push(...yield* fileEntries(system, 'system', read));
  for (const file of globalFiles(read.env)) out.push(...yield* fileEntries(file, 'global', read));
  return out;
}

/**
 * Every entry git reads for a command run outside any repository: the system and global files,
 * then the command line's.
 */
export function configOutsideRepository(read: ReadOptions): ConfigEntry[] {
  return [...runSync(outerEntries(read)), ...commandLineEntries(read.env)];
}

/** A variable's full name as git's parser gives it (section and key lower-cased, the subsection as written). */
export function displayName(e: ConfigEntry): string {
  if (e.subsection !== null) return `${e.section}.${e.subsection}.${e.key}`;
  return e.section === '' ? e.key : `${e.section}.${e.key}`;
}

/** The error for a variable git reads as a string written without a value (git's config_error_nonbool). */
export function missingValue(e: ConfigEntry): GitError {
  return new GitError('config', 'bad-value', `missing value for '${displayName(e)}' in file ${e.file} line ${e.line}`);
}

/** extensions.worktreeConfig as the repository's config (`local`) last sets it. */
function worktreeConfigOn(local: readonly ConfigEntry[]): boolean {
  const e = local.filter((x) => x.section === 'extensions' && x.subsection === null && x.key === 'worktreeconfig').at(-1);
  return e !== undefined && (e.value === null || parseBool(e.value) === true);
}
