// The zlib level for loose objects, as git's git_default_core_config reads it: core.loosecompression,
// else core.compression, else 1 (best speed); -1 is zlib's default; anything else outside 0..9 is
// git's fatal "bad zlib compression level".
import { GitError } from '../core/errors.js';
import type { Config } from './config.js';

export function looseCompression(config: Config | null | undefined): number {
  const level = config?.getInt('core', null, 'loosecompression') ?? config?.getInt('core', null, 'compression') ?? 1;
  if (level === -1) return 6;
  if (level < 0 || level > 9) throw new GitError('config', 'bad-value', `bad zlib compression level ${level}`);
  return level;
}
