// git's git_config_set_multivar_in_file for commands other than `config` that write the
// repository's config file (`remote`): one variable set, replaced or removed through `config`'s
// own value writer (config-set.ts writeValue), its value-pattern a POSIX extended regular
// expression as git's.
import { parseVariableName } from '../config/edit.js';
import { toBinary } from '../config/parse.js';
import { writeValue } from './config-set.js';
import { fatal } from './context.js';

export interface MultivarWrite {
  /** The variable, as git's callers spell it (`remote.<name>.url`). */
  key: string;
  /** null removes. */
  value: string | null;
  /** Which present values are replaced or removed; all when null. */
  pattern?: string | null;
  /** git's CONFIG_FLAGS_MULTI_REPLACE: every match, else a second match refuses the write. */
  all?: boolean;
}

/**
 * git_config_set_multivar_in_file_gently on `file`: false when nothing was written (nothing to
 * remove, several matches without `all`, after git's warning; a bad pattern or no lock, after
 * git's error).
 */
export function setMultivarGently(file: string, write: MultivarWrite): boolean {
  return writeValue({ path: file, shown: file }, {
    name: parseVariableName(toBinary(write.key)), value: write.value, pattern: write.pattern ?? null, fixedValue: false, all: write.all ?? false,
  }) === 'written';
}

/** git_config_set_multivar_in_file: as setMultivarGently, dying when nothing was written. */
export function setMultivar(file: string, write: MultivarWrite): void {
  if (setMultivarGently(file, write)) return;
  throw fatal(write.value === null ? `could not unset '${write.key}'` : `could not set '${write.key}' to '${write.value}'`);
}
