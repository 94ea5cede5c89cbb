// Writing `<commonDir>/shallow` (repository/shallow-file.ts reads it): one hex id per line, sorted as
// git writes them, through shallow.lock and a rename.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { fromHex } from '../core/oid.js';
import type { ObjectStore } from '../odb/object-store.js';
import { readShallow } from '../repository/shallow-file.js';

// Read as the server reads it; offered beside the writer to the client's fetch, clone and push.
export { readShallow };

/** The commits of a remote's shallow boundary that are here (once its pack is stored). */
export function boundaryHere(odb: ObjectStore, boundary: readonly string[]): string[] {
  return boundary.filter((oid) => odb.has(fromHex(oid)!));
}

/** Applies a shallow update: adds `add`, removes `remove`; deletes the file when nothing is left. */
export function updateShallow(commonDir: string, add: readonly string[], remove: readonly string[]): void {
  if (add.length === 0 && remove.length === 0) return;
  const set = new Set(readShallow(commonDir));
  for (const id of add) set.add(id);
  for (const id of remove) set.delete(id);
  const file = path.join(commonDir, 'shallow');
  if (set.size === 0) {
    fs.rmSync(file, { force: true });
    return;
  }
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = fs.openSync(lock, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o666);
  } catch (e) {
    throw new GitError('client', 'locked', `unable to create '${lock}': ${(e as Error).message}`, { cause: e });
  }
  try {
    fs.writeSync(fd, [...set].sort().map((id) => `${id}\n`).join(''));
    fs.closeSync(fd);
    fd = -1;
    fs.renameSync(lock, file);
  } finally {
    if (fd >= 0) fs.closeSync(fd);
    fs.rmSync(lock, { force: true });
  }
}
