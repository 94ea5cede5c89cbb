// A bare repository for bitmap walks, built with git: a main line with side branches merged back,
// annotated tags on a commit, on that tag, on a tree and on a blob, and a lightweight tag, all in
// one pack with git's bitmap (`git repack -adb`). Then history the bitmap does not know: a second
// pack (fast-import) and, after it, loose objects (a commit on main, a new branch, a tag of a loose
// tree and a tag of a loose blob), so walks meet objects outside the bitmapped pack.
import path from 'node:path';
import fs from 'node:fs';
import { FastImport, mainLine } from './fast-import-history.js';
import { GIT_ENV, git, tmpDir } from './helpers.js';

export interface BitmapRepo {
  dir: string;
  /** Names and ids worth walking from. */
  rev(name: string): string;
}

export function buildBitmapRepo(n = 120): BitmapRepo {
  const dir = tmpDir('tsgit-bitmap-walk-');
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const fi = new FastImport(dir);
  mainLine(fi, n, 30);
  fi.flush(['-c', 'fastimport.unpackLimit=0']);
  git(dir, ['tag', '-a', '-m', 'release', 'v1', 'main~20']);
  git(dir, ['tag', '-a', '-m', 'nested', 'v1-nested', 'v1']);
  git(dir, ['tag', '-a', '-m', 'a tree', 'treetag', 'main~3^{tree}']);
  git(dir, ['tag', '-a', '-m', 'a blob', 'blobtag', 'main:same/copy.txt']);
  git(dir, ['tag', 'light', 'main~50']);
  git(dir, ['repack', '-adbq']);

  // A second pack: more history on main and a branch forked from old history.
  const tip = git(dir, ['rev-parse', 'main']).trim();
  const old = git(dir, ['rev-parse', 'main~70']).trim();
  let m2 = 0;
  for (let i = 0; i < 6; i++) {
    m2 = fi.commit('refs/heads/main', [m2 || tip], [[`new/n${i}.txt`, `new ${i}\n`], ['same/copy.txt', `second pack ${i}\n`]]);
  }
  fi.commit('refs/heads/old-fork', [old], [['fork/f.txt', 'fork\n'], ['d1/e1/f1.txt', 'forked\n']]);
  fi.flush(['-c', 'fastimport.unpackLimit=0']);
  git(dir, ['tag', '-a', '-m', 'in the second pack', 'v2', 'main']);

  // Loose objects: a commit on main with a new subtree, a branch of its own, tags of a tree and a blob.
  const env = (t: number) => ({ GIT_COMMITTER_DATE: `${t} +0000`, GIT_AUTHOR_DATE: `${t} +0000` });
  const blob = git(dir, ['hash-object', '-w', '--stdin'], 'loose blob\n').trim();
  const blob2 = git(dir, ['hash-object', '-w', '--stdin'], 'another loose blob\n').trim();
  const sub = git(dir, ['mktree'], `100644 blob ${blob}\tinner.txt\n`).trim();
  const baseTree = git(dir, ['rev-parse', 'main^{tree}']).trim();
  const entries = git(dir, ['ls-tree', baseTree]).split('\n').filter(Boolean);
  entries.push(`040000 tree ${sub}\tloose-dir`, `100644 blob ${blob2}\tloose.txt`);
  const tree = git(dir, ['mktree'], entries.join('\n') + '\n').trim();
  const c1 = gitAt(dir, ['commit-tree', tree, '-p', 'main', '-m', 'loose 1'], fi.tick(), env);
  git(dir, ['update-ref', 'refs/heads/main', c1]);
  const c2 = gitAt(dir, ['commit-tree', sub, '-p', 'side30', '-m', 'loose branch'], fi.tick(), env);
  git(dir, ['update-ref', 'refs/heads/loose', c2]);
  git(dir, ['tag', '-a', '-m', 'a loose tree', 'loosetreetag', sub]);
  git(dir, ['tag', '-a', '-m', 'a loose blob', 'looseblobtag', blob2]);
  git(dir, ['tag', '-a', '-m', 'tag of a loose tag', 'loosenested', 'loosetreetag']);
  const packs = fs.readdirSync(path.join(dir, 'objects', 'pack')).filter(f => f.endsWith('.pack'));
  if (packs.length !== 2) throw new Error(`expected two packs in ${dir}, found ${packs.join(', ')}`);
  return { dir, rev: (name: string) => git(dir, ['rev-parse', name]).trim() };
}

function gitAt(dir: string, args: string[], t: number, env: (t: number) => NodeJS.ProcessEnv): string {
  return git(dir, args, undefined, { ...GIT_ENV, ...env(t) }).trim();
}
