// push.default as git's git_default_push_config reads it: one of nothing, matching, simple,
// upstream (or its old name tracking) and current, spelled exactly so; unset means simple. git
// refuses any other value when it reads its configuration, whatever the command.
import type { Config, ConfigEntry } from '../config/index.js';
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

/**
 * git_default_push_config's errors about a push.default `entry` (each one given is judged, not
 * only the last); null for a value it takes or another variable.
 */
export function pushDefaultComplaint(entry: ConfigEntry): string[] | null {
  if (entry.section !== 'push' || entry.subsection !== null || entry.key !== 'default') return null;
  if (entry.value === null) return ["missing value for 'push.default'"];
  if (Object.hasOwn(MODES, entry.value)) return null;
  return [`malformed value for push.default: ${entry.value}`, 'must be one of nothing, matching, simple, upstream or current'];
}
