// git's death on a value its configuration callback refuses (config.c configset_iter): the
// callback's complaint as errors, then where the variable was set.
import type { Config, ConfigEntry } from '../config/index.js';
import { displayName } from '../config/config.js';
import type { GitError } from '../core/errors.js';
import { pushDefaultComplaint } from '../repository/push-default.js';
import { autoSetupMergeFatal, autoSetupRebaseComplaint } from '../repository/upstream.js';
import { fatal, type CommandContext } from './context.js';
import { writeAll } from './output.js';

/** Says each of `complaints` on stderr and returns git's fatal error for `entry` (git_die_config_linenr). */
export function badConfigVariable(ctx: CommandContext, entry: ConfigEntry, complaints: readonly string[]): GitError {
  writeAll(2, Buffer.from(complaints.map((c) => `error: ${c}\n`).join(''), 'utf8'));
  const name = displayName(entry);
  return fatal(entry.scope === 'command' ? `unable to parse '${name}' from command-line config`
    : `bad config variable '${name}' in file '${ctx.shownFile(entry.file)}' at line ${entry.line}`);
}

/**
 * The values git_default_config refuses through the configuration's error path that tsgit judges:
 * branch.autoSetupRebase's and push.default's. (A bad branch.autoSetupMerge dies sooner, as
 * git_config_bool does.)
 */
const JUDGES = [autoSetupRebaseComplaint, pushDefaultComplaint];

/**
 * Dies as git's git_default_config does on the first value it refuses, in the order the
 * configuration is read, for the commands (checkout, fetch, push) whose configuration callback
 * hands it every variable.
 */
export function refuseBadDefaultConfig(ctx: CommandContext, config: Config): void {
  for (const entry of config.list()) {
    const death = autoSetupMergeFatal(entry);
    if (death) throw fatal(death);
    for (const judge of JUDGES) {
      const complaints = judge(entry);
      if (complaints) throw badConfigVariable(ctx, entry, complaints);
    }
  }
}
