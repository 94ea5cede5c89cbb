// A bare repository for bitmap walks, built with git: a main line with side branches merged back,
// annotated tags on a commit, on that tag, on a tree and on a blob, and a lightweight tag, all in
// one pack with git's bitmap (`git repack -adb`). Then history the bitmap does not know: a second
// pack (fast-import) and, after it, loose objects (a commit on main, a new branch, a tag of a loose
// tree and a tag of a loose blob), so walks meet objects outside the bitmapped pack.
import path from 'node:path';
import fs from 'node:fs';
import { GIT_ENV, git, tmpDir } from './helpers.js';

export interface BitmapRepo {
  dir: string;
  /** Names and ids worth walking from. */
  rev(name: string): string;
}

export function buildBitmapRepo(n = 120): BitmapRepo {
  const dir = tmpDir('tsgit-bitmap-walk-');
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  let time = 1700000000;
  let lines: string[] = [];
  let mark = 0;
  const data = (s: string) => [`data ${Buffer.byteLength(s)}`, s];
  const commit = (ref: string, parents: (number | string)[], files: [string, string][]) => {
    const m = ++mark;
    lines.push(`commit ${ref}`, `mark :${m}`, `committer C O Mitter <c@example.com> ${time += 60} +0000`, ...data(`commit ${m}\n`));
    const from = (p: number | string) => typeof p === 'number' ? `:${p}` : p;
    if (parents[0] !== undefined) lines.push(`from ${from(parents[0])}`);
    for (const p of parents.slice(1)) lines.push(`merge ${from(p)}`);
    for (const [p, body] of files) lines.push(`M 100644 inline ${p}`, ...data(body));
    return m;
  };
  const flush = () => {
    lines.push('');
    git(dir, ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], lines.join('\n'));
    lines = [];
    mark = 0;
  };
  let main = 0;
  for (let i = 1; i <= n; i++) {
    if (i % 30 === 0) {
      let side = main;
      for (let k = 0; k < 3; k++) side = commit(`refs/heads/side${i}`, [side], [[`side/s${i}/f${k}.txt`, `side ${i} ${k}\n`]]);
      main = commit('refs/heads/main', [main, side], [[`merged/m${i}.txt`, 'merge\n']]);
    } else {
      main = commit('refs/heads/main', main ? [main] : [], [
        [`d${i % 5}/e${i % 3}/f${i % 7}.txt`, `contents ${i}\n`.repeat(1 + (i % 4))],
        ['same/copy.txt', `shared ${i % 10}\n`],
        [`alias${i % 2}.txt`, `shared ${i % 10}\n`],
      ]);
    }
  }
  flush();
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
    m2 = commit('refs/heads/main', [m2 || tip], [[`new/n${i}.txt`, `new ${i}\n`], ['same/copy.txt', `second pack ${i}\n`]]);
  }
  commit('refs/heads/old-fork', [old], [['fork/f.txt', 'fork\n'], ['d1/e1/f1.txt', 'forked\n']]);
  flush();
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
  const c1 = gitAt(dir, ['commit-tree', tree, '-p', 'main', '-m', 'loose 1'], time += 60, env);
  git(dir, ['update-ref', 'refs/heads/main', c1]);
  const c2 = gitAt(dir, ['commit-tree', sub, '-p', 'side30', '-m', 'loose branch'], time += 60, env);
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
