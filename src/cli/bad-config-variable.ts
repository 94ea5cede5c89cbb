// git's death on a value its configuration callback refuses (config.c configset_iter): the
// callback's complaint as an error, then where the variable was set.
import type { Config, ConfigEntry } from '../config/index.js';
import { displayName } from '../config/config.js';
import type { GitError } from '../core/errors.js';
import { refusedAutoSetupRebase } from '../repository/upstream.js';
import { fatal, type CommandContext } from './context.js';
import { writeAll } from './output.js';

/** Says `complaint` on stderr and returns git's fatal error for `entry` (git_die_config_linenr). */
export function badConfigVariable(ctx: CommandContext, entry: ConfigEntry, complaint: string): GitError {
  writeAll(2, Buffer.from(`error: ${complaint}\n`, 'utf8'));
  const name = displayName(entry);
  return fatal(entry.scope === 'command' ? `unable to parse '${name}' from command-line config`
    : `bad config variable '${name}' in file '${ctx.shownFile(entry.file)}' at line ${entry.line}`);
}

/**
 * Dies as git's git_default_config does on a branch.autoSetupRebase it refuses, for the commands
 * (checkout, fetch, push) whose configuration callback hands it every variable.
 */
export function refuseBadAutoSetupRebase(ctx: CommandContext, config: Config): void {
  const refused = refusedAutoSetupRebase(config);
  if (refused) throw badConfigVariable(ctx, refused.entry, refused.complaint);
}
