// push.default as git's git_default_push_config reads it: one of nothing, matching, simple,
// upstream (or its old name tracking) and current, spelled exactly so; unset means simple. git
// refuses any other value when it reads its configuration, whatever the command.
import type { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';

export type PushDefault = 'nothing' | 'matching' | 'simple' | 'upstream' | 'current';

const MODES: Record<string, PushDefault> = {
  nothing: 'nothing', matching: 'matching', simple: 'simple', upstream: 'upstream', tracking: 'upstream', current: 'current',
};

/** The push.default mode; throws git's complaint about a value it does not know. */
export function pushDefault(config: Config): PushDefault {
  const value = config.get('push', null, 'default');
  if (value === undefined) return 'simple';
  const mode = Object.hasOwn(MODES, value) ? MODES[value] : undefined;
  if (mode === undefined) {
    throw new GitError('config', 'bad-value', `malformed value for push.default: ${value}; must be one of nothing, matching, simple, upstream or current`);
  }
  return mode;
}
