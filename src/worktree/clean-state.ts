// Whether a work tree and its index hold exactly the commit checked out, as receive-pack's
// push_to_deploy asks before it moves them (git runs `diff-files --quiet --ignore-submodules` then
// `diff-index --quiet --cached --ignore-submodules HEAD`):
//   unstaged  an index entry whose file differs (switch/clean.ts decides, as a switch does: stat
//             data, then the content through the clean filter and conversions), is gone, or an
//             unmerged entry;
//   staged    the stage-0 entries differ from HEAD's tree (the empty tree on an unborn branch).
// Submodules (gitlinks) are left out of both, as --ignore-submodules does; skip-worktree entries
// and assume-unchanged entries out of the first, as diff-files does. Untracked files are no change.
import path from 'node:path';
import { Config } from '../config/index.js';
import { oidEquals, toHex } from '../core/oid.js';
import { MODE_GITLINK } from '../object/tree.js';
import { OBJ_TREE } from '../object/type.js';
import type { Repository } from '../repository/repository.js';
import { indexPath } from './checkout.js';
import { readCheckoutSettings } from './checkout/settings.js';
import { CE_SKIP_WORKTREE, CE_VALID, entryStage, type IndexEntry } from './index-file/entry.js';
import { readIndexFile } from './index-file/read.js';
import { readFilterDrivers } from './filter/driver.js';
import { FilterRunner } from './filter/filters.js';
import { workTreeChecks } from './switch/clean-filters.js';
import { flattenTree, pathKey, type TreeEntryInfo } from './switch/tree-entries.js';

export type WorkTreeState = 'clean' | 'unstaged' | 'staged';

export interface CleanStateOptions {
  env?: NodeJS.ProcessEnv;
  config?: Config;
  log?: (message: string) => void;
}

/** How the work tree and index of `repo` stand against `headCommit` (null: unborn). */
export async function workTreeState(repo: Repository, headCommit: Uint8Array | null,
  options: CleanStateOptions = {}): Promise<WorkTreeState> {
  const env = options.env ?? process.env;
  if (!repo.workTree) throw new Error('workTreeState needs a work tree');
  const root = path.resolve(repo.workTree);
  const config = options.config ?? repo.loadConfig(env);
  const settings = readCheckoutSettings(config, repo.commonDir, env);
  const odb = repo.odb;
  const index = readIndexFile(indexPath(repo.gitDir, env));
  const entries = index?.entries ?? [];
  const headTreeId = headCommit ? repo.revs().peel(headCommit, OBJ_TREE, toHex(headCommit)) : null;
  const headTree = headTreeId ? flattenTree(odb, headTreeId) : new Map<string, TreeEntryInfo>();

  // diff-files
  if (entries.some(e => entryStage(e) !== 0)) return 'unstaged';
  // An assume-unchanged entry (CE_VALID) is taken at its word, as diff-files takes it.
  const tracked = entries.filter(e => e.mode !== MODE_GITLINK && !(e.extendedFlags & CE_SKIP_WORKTREE) && !(e.flags & CE_VALID));
  if (tracked.length) {
    const log = options.log ?? ((m: string) => { process.stderr.write(m); });
    const runner = new FilterRunner({ cwd: root, env, log });
    try {
      // Files are read back through the work tree's attributes (its .gitattributes first, then
      // HEAD's where it lacks them), as diff-files reads them in the check-in direction.
      const checks = workTreeChecks(root, odb, headTree,
        { config, settings, drivers: readFilterDrivers(config), runner, indexTimestampSec: index?.timestampSec ?? 0, log });
      const verdicts = tracked.map(e => checks.isClean(e));
      await checks.run();
      if ((await Promise.all(verdicts)).some(clean => !clean)) return 'unstaged';
    } finally {
      await runner.close();
    }
  }

  // diff-index --cached
  const staged = new Map<string, IndexEntry>();
  for (const e of entries) if (e.mode !== MODE_GITLINK) staged.set(pathKey(e.path), e);
  let inHead = 0;
  for (const [key, t] of headTree) {
    if (t.mode === MODE_GITLINK) continue;
    inHead++;
    const e = staged.get(key);
    if (!e || e.mode !== t.mode || !oidEquals(e.oid, 0, t.oid, 0)) return 'staged';
  }
  return staged.size === inHead ? 'clean' : 'staged';
}
