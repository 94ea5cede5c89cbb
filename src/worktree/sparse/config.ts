// The settings `sparse-checkout` records, where git 2.39 records them: it first turns on
// extensions.worktreeConfig (init_worktree_config, moving core.bare = true and core.worktree out
// of the shared config into the main work tree's config.worktree, where they would otherwise
// hold for every work tree), then writes core.sparseCheckout and core.sparseCheckoutCone (and
// index.sparse) into this work tree's $GIT_DIR/config.worktree.
import fs from 'node:fs';
import path from 'node:path';
import { applyEdit, type ConfigEdit } from '../../config/edit.js';
import { Config } from '../../config/index.js';
import { LockFile } from '../../core/lock-file.js';

/** Applies `edits` to one config file through its lock, creating the file if need be. */
function editFile(file: string, edits: readonly ConfigEdit[]): void {
  const lock = LockFile.acquire(file, `config file ${file}`, 'config');
  try {
    let text = '';
    try {
      text = fs.readFileSync(file).toString('latin1');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    for (const edit of edits) text = applyEdit(text, file, edit);
    lock.write(Buffer.from(text, 'latin1'));
    lock.commit();
  } finally {
    lock.rollback();
  }
}

/** git's init_worktree_config: nothing to do once the extension is on. */
function initWorktreeConfig(gitDir: string, commonDir: string): void {
  const shared = Config.loadSync(gitDir);
  if (shared.getBool('extensions', null, 'worktreeconfig')) return;
  shared.set('extensions', null, 'worktreeConfig', 'true');
  shared.save();
  const moved: ConfigEdit[] = [];
  if (shared.getBool('core', null, 'bare')) moved.push({ op: 'set', section: 'core', subsection: null, key: 'bare', value: 'true' });
  const worktree = shared.get('core', null, 'worktree');
  if (worktree !== undefined) moved.push({ op: 'set', section: 'core', subsection: null, key: 'worktree', value: worktree });
  if (!moved.length) return;
  editFile(path.join(commonDir, 'config.worktree'), moved);
  for (const m of moved) shared.unset(m.section, m.subsection, m.key);
  shared.save();
}

export type SparseMode = 'off' | 'patterns' | 'cone';

/** git's set_config: the mode in this work tree's config (index.sparse off with the mode). */
export function recordSparseMode(gitDir: string, commonDir: string, mode: SparseMode): void {
  initWorktreeConfig(gitDir, commonDir);
  const set = (key: string, value: string): ConfigEdit => ({ op: 'set', section: 'core', subsection: null, key, value });
  const edits = [set('sparseCheckout', String(mode !== 'off')), set('sparseCheckoutCone', String(mode === 'cone'))];
  if (mode === 'off') edits.push({ op: 'set', section: 'index', subsection: null, key: 'sparse', value: 'false' });
  editFile(path.join(gitDir, 'config.worktree'), edits);
}

/** git's set_sparse_index_config(0), for --no-sparse-index. */
export function recordNoSparseIndex(gitDir: string, commonDir: string): void {
  initWorktreeConfig(gitDir, commonDir);
  editFile(path.join(gitDir, 'config.worktree'), [{ op: 'set', section: 'index', subsection: null, key: 'sparse', value: 'false' }]);
}
