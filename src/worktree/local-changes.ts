// The local changes a switch carried over, as git's checkout lists them once it has switched
// (show_local_changes: `diff-index --name-status` of the commit switched to against the work
// tree, through the index just written): a path the commit has whose file is gone, or that the
// index no longer has, is D; one only the index has is A while its file is there; one whose index
// entry or file differs from the commit's is M (T when the index's type differs). In path order.
// A skip-worktree entry has no file to differ; a submodule is compared by its index entry only.
import path from 'node:path';
import { MODE_GITLINK } from '../object/tree.js';
import { OBJ_TREE } from '../object/type.js';
import { oidEquals, toHex } from '../core/oid.js';
import type { Repository } from '../repository/repository.js';
import { indexPath } from './checkout.js';
import { readCheckoutSettings } from './checkout/settings.js';
import { readFilterDrivers } from './filter/driver.js';
import { FilterRunner } from './filter/filters.js';
import { entryStage } from './index-file/entry.js';
import { readIndexFile } from './index-file/read.js';
import { isSkipped } from './sparse/index-state.js';
import { lstatOrNull } from './switch/clean.js';
import { workTreeChecks } from './switch/clean-filters.js';
import { flattenTree, pathKey } from './switch/tree-entries.js';

export interface LocalChange {
  status: 'A' | 'D' | 'M' | 'T';
  path: Uint8Array;
}

/** S_IFMT of a mode: a file and an executable are one type, a symlink and a submodule others. */
const typeOf = (mode: number): number => mode & 0o170000;

export async function localChanges(repo: Repository, commit: Uint8Array, env: NodeJS.ProcessEnv): Promise<LocalChange[]> {
  const root = path.resolve(repo.workTree!);
  const index = readIndexFile(indexPath(repo.gitDir, env));
  if (!index) return [];
  const config = repo.loadConfig(env);
  const tree = flattenTree(repo.odb, repo.revs().peel(commit, OBJ_TREE, toHex(commit)));
  const settings = readCheckoutSettings(config, repo.commonDir, env, root);
  const log = (m: string): void => { process.stderr.write(m); };
  const runner = new FilterRunner({ cwd: root, env, log });
  try {
    const checks = workTreeChecks(root, repo.odb, tree, { config, settings, drivers: readFilterDrivers(config), runner, indexTimestampSec: index.timestampSec, log });
    const changes: LocalChange[] = [];
    const decisions: Promise<void>[] = [];
    const seen = new Set<string>();
    for (const e of index.entries) {
      if (entryStage(e) !== 0) continue;
      const key = pathKey(e.path);
      seen.add(key);
      const t = tree.get(key);
      const skipped = isSkipped(e);
      const present = skipped || lstatOrNull(checks.fsPathOf(e)) !== null;
      if (!t) {
        if (present) changes.push({ status: 'A', path: e.path });
      } else if (!present) {
        changes.push({ status: 'D', path: e.path });
      } else if (typeOf(t.mode) !== typeOf(e.mode)) {
        changes.push({ status: 'T', path: e.path });
      } else if (t.mode !== e.mode || !oidEquals(t.oid, 0, e.oid, 0)) {
        changes.push({ status: 'M', path: e.path });
      } else if (!skipped && e.mode !== MODE_GITLINK) {
        decisions.push(checks.isClean(e).then((clean) => { if (!clean) changes.push({ status: 'M', path: e.path }); }));
      }
    }
    await checks.run();
    await Promise.all(decisions);
    for (const key of tree.keys()) if (!seen.has(key)) changes.push({ status: 'D', path: Buffer.from(key, 'latin1') });
    return changes.sort((a, b) => Buffer.compare(a.path, b.path));
  } finally {
    await runner.close();
  }
}
