// `<gitDir>/shallow`: the commits whose parents this repository does not have, one hex id per
// line, sorted as git writes them. Rewritten through shallow.lock and a rename.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { isHexOid } from '../core/oid.js';

export function readShallow(gitDir: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(gitDir, 'shallow'), 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    if (!isHexOid(line)) throw new GitError('client', 'corrupt', `${path.join(gitDir, 'shallow')} line ${i + 1}: not an object id: ${JSON.stringify(line)}`);
    out.push(line.toLowerCase());
  }
  return out;
}

/** Applies a shallow update: adds `add`, removes `remove`; deletes the file when nothing is left. */
export function updateShallow(gitDir: string, add: readonly string[], remove: readonly string[]): void {
  if (add.length === 0 && remove.length === 0) return;
  const set = new Set(readShallow(gitDir));
  for (const id of add) set.add(id);
  for (const id of remove) set.delete(id);
  const file = path.join(gitDir, 'shallow');
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
