// The bitmapped copy of a corpus that the bitmap benchmarks serve: `git clone --mirror` of it
// (every ref, its pack hard-linked), then `git repack -adb` once, cached beside it as
// <name>-bitmap.git. The repack also writes a .rev file, as git does by default since 2.41, so
// neither tool has to sort the pack's offsets before answering. git and tsgit serve the same
// files. A marker written last tells a finished build from an interrupted one.
import { execFileSync } from 'node:child_process';
import { cachedBuild } from './cached-build.js';

const MARKER = 'tsgit-bench-bitmap';
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** The bitmapped copy's path, building it first when it is missing or unfinished. */
export function ensureBitmapCorpus(gitDir: string): string {
  const target = bitmapCorpusDir(gitDir);
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: gitDir, env: GIT_ENV }).toString().trim();
  return cachedBuild(target, MARKER, head, (tmp) => {
    execFileSync('git', ['clone', '-q', '--mirror', gitDir, tmp], { env: GIT_ENV });
    execFileSync('git', ['config', 'gc.auto', '0'], { cwd: tmp, env: GIT_ENV });
    execFileSync('git', ['-c', 'pack.writeReverseIndex=true', 'repack', '-adbq'], { cwd: tmp, env: GIT_ENV });
    return tmp;
  });
}

/** Where the bitmapped copy of `gitDir` lives (built or not). */
function bitmapCorpusDir(gitDir: string): string {
  return gitDir.replace(/\.git$/, '') + '-bitmap.git';
}
