// The settings `sparse-checkout` records, where git 2.39 records them: it first turns on
// extensions.worktreeConfig (init_worktree_config, moving core.bare = true and core.worktree out
// of the shared config into the main work tree's config.worktree, where they would otherwise
// hold for every work tree), then writes core.sparseCheckout and core.sparseCheckoutCone (and
// index.sparse) into this work tree's $GIT_DIR/config.worktree.
import path from 'node:path';
import { parseVariableName, writeVariable } from '../../config/edit.js';
import { Config } from '../../config/index.js';
import { toBinary } from '../../config/parse.js';
import { writeConfigFile } from '../../config/write-file.js';

/** A variable of `core` or `index` and the value git records for it (ASCII names and values). */
type Setting = readonly [name: string, value: string];

/** Sets each variable in one config file through its lock, creating the file if need be. */
function editFile(file: string, settings: readonly Setting[]): void {
  writeConfigFile(file, (current) => settings.reduce((text, [name, value]) => {
    const result = writeVariable(text, file, { name: parseVariableName(name), value, all: true });
    return 'text' in result ? result.text : text;
  }, current ?? ''));
}

/** git's init_worktree_config: nothing to do once the extension is on. */
function initWorktreeConfig(gitDir: string, commonDir: string): void {
  const shared = Config.loadSync(gitDir);
  if (shared.getBool('extensions', null, 'worktreeconfig')) return;
  shared.set('extensions', null, 'worktreeConfig', 'true');
  shared.save();
  const moved: Setting[] = [];
  if (shared.getBool('core', null, 'bare')) moved.push(['core.bare', 'true']);
  const worktree = shared.get('core', null, 'worktree');
  if (worktree !== undefined) moved.push(['core.worktree', toBinary(worktree)]);
  if (!moved.length) return;
  editFile(path.join(commonDir, 'config.worktree'), moved);
  for (const [name] of moved) shared.unset('core', null, name.slice('core.'.length));
  shared.save();
}

export type SparseMode = 'off' | 'patterns' | 'cone';

/** git's set_config: the mode in this work tree's config (index.sparse off with the mode). */
export function recordSparseMode(gitDir: string, commonDir: string, mode: SparseMode): void {
  initWorktreeConfig(gitDir, commonDir);
  const settings: Setting[] = [['core.sparseCheckout', String(mode !== 'off')], ['core.sparseCheckoutCone', String(mode === 'cone')]];
  if (mode === 'off') settings.push(['index.sparse', 'false']);
  editFile(path.join(gitDir, 'config.worktree'), settings);
}

/** git's set_sparse_index_config(0), for --no-sparse-index. */
export function recordNoSparseIndex(gitDir: string, commonDir: string): void {
  initWorktreeConfig(gitDir, commonDir);
  editFile(path.join(gitDir, 'config.worktree'), [['index.sparse', 'false']]);
}
