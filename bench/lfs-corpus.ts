// The repository the LFS checkout benchmark clones: 2,000 LFS-tracked files (2 KiB each, from a
// seeded hash chain, in 40 directories) and 100 ordinary ones, pushed with git-lfs to a bare
// repository whose lfs/objects holds the objects (git-lfs's standalone transfer for file://
// remotes). Built once with git and git-lfs in a private HOME, cached as lfs-2000.git in the
// corpus cache; a marker written last tells a finished build from an interrupted one.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cachedBuild } from './cached-build.js';
import { cacheDir } from './corpus.js';

const MARKER = 'tsgit-bench-lfs';
const FILES = 2000;
const DIRS = 40;
const SIZE = 2048;
const PLAIN = 100;

/** The filter.lfs settings `git lfs install` writes, for a clone's own config. */
export const LFS_CONFIG: [string, string][] = [
  ['filter.lfs.clean', 'git-lfs clean -- %f'],
  ['filter.lfs.smudge', 'git-lfs smudge -- %f'],
  ['filter.lfs.process', 'git-lfs filter-process'],
  ['filter.lfs.required', 'true'],
];

/** The bare repository's path, building it first when it is missing or unfinished. */
export function ensureLfsCorpus(): string {
  const target = path.join(cacheDir(), `lfs-${FILES}.git`);
  return cachedBuild(target, MARKER, `${FILES}\n`, (tmp) => {
    const home = path.join(tmp, 'home');
    const work = path.join(tmp, 'work');
    const bare = path.join(tmp, 'repo.git');
    fs.mkdirSync(home, { recursive: true });
    const env = {
      ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'),
      GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@example.com',
      GIT_AUTHOR_DATE: '1700000000 +0000', GIT_COMMITTER_DATE: '1700000000 +0000',
    };
    const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    git(tmp, ['lfs', 'install', '--skip-repo']);
    git(tmp, ['init', '-q', '--bare', '-b', 'main', bare]);
    git(tmp, ['init', '-q', '-b', 'main', work]);
    fs.writeFileSync(path.join(work, '.gitattributes'), 'assets/** filter=lfs diff=lfs merge=lfs -text\n');
    let h = Buffer.from('tsgit-lfs-bench');
    for (let i = 0; i < FILES; i++) {
      const dir = path.join(work, 'assets', `d${i % DIRS}`);
      fs.mkdirSync(dir, { recursive: true });
      const parts: Buffer[] = [];
      for (let n = 0; n < SIZE; n += 32) parts.push(h = crypto.createHash('sha256').update(h).digest());
      fs.writeFileSync(path.join(dir, `asset-${i}.bin`), Buffer.concat(parts));
    }
    for (let i = 0; i < PLAIN; i++) {
      fs.mkdirSync(path.join(work, 'src'), { recursive: true });
      fs.writeFileSync(path.join(work, 'src', `file-${i}.c`), `int f${i}(void) { return ${i}; }\n`);
    }
    git(work, ['add', '-A']);
    git(work, ['commit', '-q', '-m', 'assets']);
    git(work, ['push', '-q', `file://${bare}`, 'main']);
    return bare;
  });
}
