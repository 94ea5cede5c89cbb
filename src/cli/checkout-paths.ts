// tsgit checkout [-q] [-f] [<tree-ish>] [--] <pathspec>...: the paths the pathspecs match restored
// from the index, or from the tree-ish into the index first (worktree/checkout-paths.ts), with
// git's errors, warnings and count of the paths updated; then the post-checkout hook, with HEAD's
// commit twice and the flag 0, as git runs it.
import { fetchPromisedBlobs } from '../client/promised-objects.js';
import { ZERO_HEX, toHex } from '../core/oid.js';
import { OBJ_COMMIT, OBJ_TREE } from '../object/type.js';
import type { Config } from '../config/index.js';
import type { Repository } from '../repository/repository.js';
import { checkoutPaths, type PathspecMatcher } from '../worktree/checkout-paths.js';
import { postCheckout } from '../worktree/post-checkout.js';
import { configuredAbbreviator } from './abbrev.js';
import { fatal, type CommandContext } from './context.js';
import { writeAll } from './output.js';
import { cwdPrefix, matchesPathspec, pathspecItem, refuseEmptyPathspec } from './pathspec.js';
import { dwimRef } from './ref-names.js';

export interface PathsRequest {
  /** The tree-ish the paths come from; null: the index. */
  treeish: string | null;
  paths: string[];
  quiet: boolean;
  /** -f: unmerged paths are passed over with a warning. */
  force: boolean;
  /** Whether to say how many paths were updated. */
  countPaths: boolean;
  /** The environment filters run with. */
  env: NodeJS.ProcessEnv;
}

export async function checkoutPathsCommand(ctx: CommandContext, repo: Repository, config: Config, req: PathsRequest): Promise<number> {
  refuseEmptyPathspec(req.paths);
  const top = repo.workTree!;
  const prefix = cwdPrefix(ctx.cwd, top);
  const items = req.paths.map((p) => pathspecItem(p, prefix, top));
  const used = new Uint8Array(items.length);
  const pathspec: PathspecMatcher = {
    matches(p, record) {
      const name = Buffer.from(p).toString('latin1');
      let any = false;
      items.forEach((item, k) => {
        if (!matchesPathspec(item, name)) return;
        any = true;
        if (record) used[k] = 1;
      });
      return any;
    },
    unmatched: () => req.paths.filter((_, k) => !used[k]),
  };

  const revs = repo.revs();
  let tree: Uint8Array | null = null;
  // What filters are told is checked out, as git's checkout metadata: the ref the tree-ish names and its commit.
  let metadata = {};
  if (req.treeish !== null) {
    const spec = req.treeish;
    const branch = repo.resolveRef(`refs/heads/${spec}`);
    const id = branch !== null ? Buffer.from(branch, 'hex') : revs.tryResolve(spec)!;
    try {
      tree = revs.peel(id, OBJ_TREE, spec);
    } catch {
      throw fatal(`reference is not a tree: ${spec}`);
    }
    let commit: Uint8Array | null = null;
    try {
      commit = revs.peel(id, OBJ_COMMIT, spec);
    } catch { /* a tree, or a tag of one */ }
    const ref = dwimRef(repo, spec).full;
    metadata = { ...ref !== null ? { ref } : {}, ...commit ? { treeish: toHex(commit) } : {} };
  }

  const log = (text: string): void => writeAll(2, Buffer.from(text, 'utf8'));
  const result = await checkoutPaths(repo, {
    pathspec, source: tree, ignoreUnmerged: req.force, env: req.env, log, ...metadata,
    fetchBlobs: (blobs) => fetchPromisedBlobs(repo, blobs, ctx.env, ctx.cwd),
  });
  if (result.errors.length) {
    for (const e of result.errors) say(`error: ${e}`);
    return 1;
  }
  if (!req.quiet) for (const p of result.unmerged) say(`warning: path '${p}' is unmerged`);
  for (const m of result.messages) say(m);
  if (req.countPaths) {
    const n = result.written;
    const from = tree ? configuredAbbreviator(repo.odb, config)(tree, 0) : 'the index';
    say(`Updated ${n} path${n === 1 ? '' : 's'} from ${from}`);
  }
  const head = repo.openRefs(ctx.env).head().oid ?? ZERO_HEX;
  const hook = await postCheckout({ commonDir: repo.commonDir, workTree: top, config, env: req.env, gitDirEnv: null, log }, head, head, false);
  return hook === 0 ? 0 : 1;
}

function say(line: string): void {
  writeAll(2, Buffer.from(line + '\n', 'utf8'));
}
