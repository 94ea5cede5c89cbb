// Rewriting a config file as git does: under `<file>.lock` (created exclusively, its directory
// not made), the file read anew so that another writer's changes are kept, the new text written
// to the lock with the old file's mode, and the lock renamed over the file.
import fs from 'node:fs';
import { GitError } from '../core/errors.js';
import { LockFile } from '../core/lock-file.js';
import { parseVariableName, writeVariable } from './edit.js';

/** The lock could not be taken: LockFile's error (code 'locked' when it is held), the system's as cause. */
export class ConfigLockError extends GitError {
  constructor(from: GitError) {
    super('config', from.code, from.message, { cause: from.cause });
  }
}

/**
 * Rewrites `file` with what `change` makes of its text (a binary string; null when the file does
 * not exist); a null from `change` leaves the file as it was. Returns the text written, or null.
 * Taking the lock fails with a ConfigLockError.
 */
export function writeConfigFile(file: string, change: (text: string | null) => string | null): string | null {
  let lock: LockFile;
  try {
    lock = LockFile.acquire(file, `config file ${file}`, 'config', { createParents: false });
  } catch (e) {
    throw e instanceof GitError ? new ConfigLockError(e) : e;
  }
  try {
    let text: string | null = null;
    let mode: number | null = null;
    try {
      text = fs.readFileSync(file).toString('latin1');
      mode = fs.statSync(file).mode & 0o7777;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const next = change(text);
    if (next === null) return null;
    lock.write(Buffer.from(next, 'latin1'));
    if (mode !== null) lock.chmod(mode);
    lock.commit();
    return next;
  } finally {
    lock.rollback();
  }
}

/**
 * git_config_set_in_file_gently: variable `name` (binary string, `section.sub.key`) of `file` set
 * to `value`, or removed when null; at most one present value is replaced or removed, as without
 * --replace-all. False when git writes nothing: no value to remove, or several where one was
 * expected. Taking the lock fails with a ConfigLockError.
 */
export function setVariableInFile(file: string, name: string, value: string | null): boolean {
  let done = false;
  writeConfigFile(file, (text) => {
    const result = writeVariable(text ?? '', file, { name: parseVariableName(name), value, all: false });
    if (!('text' in result)) return null;
    done = true;
    return result.text;
  });
  return done;
}
