// The post-checkout hook (githooks(5)), run once the work tree and the index are written: by
// checkout, with the commit HEAD was at, the one it is at now and the flag 1 (a branch or commit
// was checked out), or HEAD's commit twice and the flag 0 when paths were; by clone, with the zero id first, unless it did not check out. Both its
// streams go to stderr, as git's run_hooks sends them; it cannot undo anything, but its exit
// status becomes the command's (checkout's 1, clone's the status itself).
import type { Config } from '../config/index.js';
import { commandHookSettings, findHook, runHookScript } from '../repository/hook-script.js';

export interface PostCheckout {
  /** The common directory, where hooks/ is. */
  commonDir: string;
  workTree: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  /** GIT_DIR as the hook gets it (clone sets it), or null for the environment as it is. */
  gitDirEnv: string | null;
  log: (text: string) => void;
}

/** Runs the hook if there is one; its exit status, 0 when there is none. `branch`: the flag. */
export async function postCheckout(o: PostCheckout, oldHex: string, newHex: string, branch = true): Promise<number> {
  const settings = commandHookSettings(o.commonDir, o.workTree, o.config, o.env, o.gitDirEnv);
  const file = findHook(settings, 'post-checkout', o.log);
  if (!file) return 0;
  const decoder = new TextDecoder();
  return runHookScript(file, settings, { args: [oldHex, newHex, branch ? '1' : '0'], stdin: null, env: {} }, (chunk) => {
    o.log(decoder.decode(chunk, { stream: true }));
  });
}
