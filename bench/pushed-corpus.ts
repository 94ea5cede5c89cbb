// A copy of a corpus shaped as a server's repository is between two gcs: its history up to
// PUSHES first-parent commits before HEAD arrived in one push (kept as a pack), and the rest came
// one commit at a time, each push small enough for git's receive-pack to keep it loose
// (receive.unpackLimit). Serving or repacking it takes a delta search over the loose objects;
// without one, every version of every file they hold would be stored and sent whole. Built once
// with git push, cached beside the corpus as <name>-pushed.git; a marker written last tells a
// finished build from an interrupted one.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { cachedBuild } from './cached-build.js';

const MARKER = 'tsgit-bench-pushed';
/** Commits pushed one at a time. */
const PUSHES = 300;
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** The pushed copy's path, building it first when it is missing or unfinished. */
export function ensurePushedCorpus(gitDir: string): string {
  const target = gitDir.replace(/\.git$/, '') + '-pushed.git';
  const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 }).toString();
  const head = git(gitDir, ['rev-parse', 'HEAD']).trim();
  return cachedBuild(target, MARKER, head, (tmp) => {
    git(path.dirname(tmp), ['init', '-q', '--bare', tmp]);
    git(tmp, ['config', 'gc.auto', '0']);
    const line = git(gitDir, ['rev-list', '--first-parent', '--reverse', 'HEAD']).trim().split('\n');
    const first = Math.max(0, line.length - PUSHES - 1);
    for (let i = first; i < line.length; i++) git(gitDir, ['push', '-q', tmp, `${line[i]}:refs/heads/main`]);
    git(tmp, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
    return tmp;
  });
}
