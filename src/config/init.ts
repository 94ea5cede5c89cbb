// The config file `git init` writes (builtin/init-db.c create_default_files), for init and clone,
// and the initial branch's name as init.defaultBranch gives it.
import type { Config } from './config.js';

export interface InitialConfigOptions {
  bare: boolean;
  /** Whether the filesystem keeps the executable bit; git probes this, tsgit's caller decides. */
  fileMode?: boolean;
}

export function initialConfigText(opts: InitialConfigOptions): string {
  return '[core]\n'
    + '\trepositoryformatversion = 0\n'
    + `\tfilemode = ${opts.fileMode ?? true}\n`
    + `\tbare = ${opts.bare}\n`
    // git only turns reflogs on by default in repositories that have a work tree.
    + (opts.bare ? '' : '\tlogallrefupdates = true\n');
}

/** The initial branch when neither -b nor init.defaultBranch names one (git's default, for now). */
export const DEFAULT_INITIAL_BRANCH = 'master';

/** init.defaultBranch, or null when it is unset or empty. */
export function configuredInitialBranch(config: Config): string | null {
  return config.get('init', null, 'defaultbranch') || null;
}
