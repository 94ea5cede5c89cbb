// The writing side of `tsgit config`: setting, adding, replacing and removing values, renaming and
// removing sections, and --edit, on one file (the repository's unless a location option names
// another) under its lock, with the statuses git's writer returns: 1 or 2 for a bad name, 5 when
// there is nothing to remove or several values where one was meant, 6 for a bad value-pattern,
// 255 when the file cannot be locked.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configOutsideRepository } from '../config/config.js';
import { parseVariableName, writeVariable, type VariableName, type VariableWrite } from '../config/edit.js';
import { fromBinary, toBinary } from '../config/parse.js';
import { renameSectionInFile, sectionNameOk } from '../config/rename-section.js';
import { ConfigLockError, writeConfigFile } from '../config/write-file.js';
import { GitError } from '../core/errors.js';
import { shellArgv } from '../core/shell.js';
import { errnoText } from '../core/errno-text.js';
import { compileValuePattern, type ReadRequest } from './config-get.js';
import { normalizedValue } from './config-typed.js';
import { fatal } from './context.js';
import { writeStderr } from './output.js';

export type SetMode = 'set' | 'set-all' | 'add' | 'replace-all' | 'unset' | 'unset-all';

export interface WriteRequest extends ReadRequest {
  /** The file written, and its name as git gives it. */
  target: { path: string; shown: string };
}

const CONFIG_NOTHING_SET = 5, CONFIG_INVALID_PATTERN = 6, CONFIG_NO_LOCK = 255;

/** `<name> <value> [<value-pattern>]` and the other value writes, as `args` gives them. */
export function setAction(req: WriteRequest, mode: SetMode, args: string[]): number {
  const [name, ...more] = args as [string, ...string[]];
  const removing = mode === 'unset' || mode === 'unset-all';
  // git types the value before it looks at the name or the file.
  const value = removing ? null : normalizedValue(req.display.type, name, more.shift()!, req.env);
  let parsedName: VariableName;
  try {
    parsedName = parseVariableName(toBinary(name));
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    writeStderr(`error: ${e.message}\n`);
    return e.code === 'no-section-or-name' ? 2 : 1;
  }
  const outcome = writeValue(req.target, {
    name: parsedName, value, pattern: mode === 'add' ? ADD : more[0] ?? null, fixedValue: req.display.fixedValue,
    all: mode === 'replace-all' || mode === 'unset-all',
  });
  switch (outcome) {
    case 'written': return 0;
    case 'invalid-pattern': return CONFIG_INVALID_PATTERN;
    case 'no-lock': return CONFIG_NO_LOCK;
    case 'multiple-values':
      if (mode === 'set') {
        writeStderr(`error: cannot overwrite multiple values with a single value\n       Use a regexp, --add or --replace-all to change ${name}.\n`);
      }
      return CONFIG_NOTHING_SET;
    case 'nothing-set': return CONFIG_NOTHING_SET;
  }
}

/** A value-pattern that matches no present value: --add's. */
export const ADD = Symbol('add');

export interface ValueWrite {
  name: VariableName;
  /** null removes. */
  value: string | null;
  /** Which present values are replaced or removed: a value-pattern, ADD, or null for all of them. */
  pattern: string | typeof ADD | null;
  /** The pattern is a string to compare with (--fixed-value), not an expression. */
  fixedValue: boolean;
  /** git's CONFIG_FLAGS_MULTI_REPLACE: every match, else a second match refuses the write. */
  all: boolean;
}

export type WriteOutcome = 'written' | 'nothing-set' | 'multiple-values' | 'invalid-pattern' | 'no-lock';

/**
 * git's git_config_set_multivar_in_file_gently on `target` (its path, and its name as git shows
 * it in the lock's error): one variable set, replaced or removed under the file's lock, with git's
 * messages for several values, a bad value-pattern and a lock held elsewhere.
 */
export function writeValue(target: WriteRequest['target'], w: ValueWrite): WriteOutcome {
  let outcome: WriteOutcome = 'written';
  const locked = withLock(target, true, () => writeConfigFile(target.path, (text) => {
    let matches: VariableWrite['matches'];
    if (w.pattern === ADD) matches = () => false;
    // git compiles the pattern only once it has a file to match it against.
    else if (w.pattern !== null && text !== null) {
      const p = compileValuePattern(w.pattern, w.fixedValue);
      if (!p) {
        outcome = 'invalid-pattern';
        return null;
      }
      // git's writer lets a key without `=` match any --fixed-value, and only a negated expression.
      matches = 'fixed' in p ? (v) => v === null || fromBinary(v) === p.fixed
        : (v) => p.negate !== (v !== null && p.re.test(fromBinary(v)));
    }
    const write: VariableWrite = { name: w.name, value: w.value === null ? null : toBinary(w.value), all: w.all, ...(matches ? { matches } : {}) };
    const result = writeVariable(text ?? '', target.path, write);
    if ('text' in result) return result.text;
    outcome = result.refused === 'multiple-values' ? 'multiple-values' : 'nothing-set';
    if (outcome === 'multiple-values') writeStderr(`warning: ${fromBinary(w.name.canonical)} has multiple values\n`);
    return null;
  }));
  return locked === null ? outcome : 'no-lock';
}

/** --rename-section <old> <new> and --remove-section <name> (newName null). */
export function sectionAction(req: WriteRequest, oldName: string, newName: string | null): number {
  if (newName !== null && !sectionNameOk(toBinary(newName))) {
    writeStderr(`error: invalid section name: ${newName}\n`);
    return CONFIG_NO_LOCK;
  }
  let count = 0;
  const locked = withLock(req.target, false, () => { count = renameSectionInFile(req.target.path, oldName, newName); });
  if (locked !== null) return locked;
  if (count === 0) throw fatal(`no such section: ${oldName}`);
  return 0;
}

/**
 * --edit: the editor git would start ($GIT_EDITOR, core.editor, $VISUAL unless the terminal is
 * dumb, $EDITOR, vi) on the file, from the top of the work tree. Like git, a missing editor or
 * one that fails is reported and the status is still 0; a missing --global file is first made
 * with git's template.
 */
export function editAction(req: ReadRequest): number {
  const { setup, source, env } = req;
  if (source?.kind === 'stdin') throw fatal('editing stdin is not supported');
  if (source?.kind === 'blob') throw fatal('editing blobs is not supported');
  const file = source?.kind === 'file' ? source.path : setup.localFile();
  const entries = setup.repo ? setup.repo.loadConfig(env).list() : configOutsideRepository({ env, includes: true });
  const get = (section: string, key: string) =>
    entries.filter((e) => e.section === section && e.subsection === null && e.key === key).at(-1)?.value ?? undefined;
  if (req.loc.global) createUserConfig(file, get('user', 'name'), get('user', 'email'), env);
  const dumb = env.TERM === undefined || env.TERM === 'dumb';
  let editor = env.GIT_EDITOR ?? get('core', 'editor') ?? (dumb ? undefined : env.VISUAL) ?? env.EDITOR;
  if (editor === undefined && !dumb) editor = 'vi';
  if (editor === undefined) {
    writeStderr('error: Terminal is dumb, but EDITOR unset\n');
    return 0;
  }
  if (editor === ':') return 0;
  const { command, args } = shellArgv(editor, [path.resolve(file)]);
  const r = spawnSync(command, args, { cwd: setup.repo?.workTree ?? setup.cwd, env, stdio: 'inherit' });
  if (r.status !== 0) writeStderr(`error: There was a problem with the editor '${editor}'.\n`);
  return 0;
}

/** git's default_user_config, written to a --global file that does not exist yet. */
function createUserConfig(file: string, name: string | undefined, email: string | undefined, env: NodeJS.ProcessEnv): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw fatal(`cannot create configuration file ${file}: ${errnoText(e)}`);
  }
  const user = os.userInfo().username;
  const host = os.hostname();
  const defaultEmail = email ?? env.EMAIL ?? `${user}@${host}${host.includes('.') ? '' : '.(none)'}`;
  fs.writeSync(fd, '# This is Git\'s per-user configuration file.\n[user]\n'
    + `# Please adapt and uncomment the following lines:\n#\tname = ${name ?? user}\n#\temail = ${defaultEmail}\n`);
  fs.closeSync(fd);
}

/**
 * Runs `write`, which takes the target's lock (see writeConfigFile). Returns 255 after git's
 * message when the lock cannot be taken (with the system's reason, as the value writer gives
 * it, not the section renamer), else null.
 */
function withLock(target: WriteRequest['target'], reason: boolean, write: () => void): number | null {
  try {
    write();
    return null;
  } catch (e) {
    if (!(e instanceof ConfigLockError)) throw e;
    writeStderr(`error: could not lock config file ${target.shown}${reason ? `: ${errnoText(e.cause)}` : ''}\n`);
    return CONFIG_NO_LOCK;
  }
}
