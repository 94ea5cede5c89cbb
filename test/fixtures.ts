// libgit2's fixture repositories (Debian package libgit2-fixtures), copied to temporary
// directories with their `.gitted` folders renamed to `.git`, as libgit2's own tests do.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, tmpDir } from './helpers.js';

export interface Fixture {
  name: string;
  /** The git directory of the copy. */
  gitDir: string;
  /** The temporary directory holding the copy; remove it when done. */
  root: string;
}

export function fixtureNames(): string[] {
  if (!fs.existsSync(FIXTURES)) return [];
  return fs.readdirSync(FIXTURES).filter(n => {
    const p = path.join(FIXTURES, n);
    return n.endsWith('.git') ? fs.statSync(p).isDirectory() : fs.existsSync(path.join(p, '.gitted'));
  }).sort();
}

export function copyFixture(name: string): Fixture {
  const root = tmpDir('tsgit-fixture-');
  const src = path.join(FIXTURES, name);
  const dst = path.join(root, name);
  fs.cpSync(src, dst, { recursive: true, verbatimSymlinks: true });
  if (name.endsWith('.git')) return { name, gitDir: dst, root };
  fs.renameSync(path.join(dst, '.gitted'), path.join(dst, '.git'));
  return { name, gitDir: path.join(dst, '.git'), root };
}
