// git's git_config_set_multivar_in_file for commands other than `config` that write the
// repository's config file (`remote`): one variable set, replaced or removed through the config
// writer (config/edit.ts), its value-pattern a POSIX extended regular expression as git's.
import { parseVariableName, writeVariable } from '../config/edit.js';
import { fromBinary, toBinary } from '../config/parse.js';
import { ConfigLockError, writeConfigFile } from '../config/write-file.js';
import { compileValuePattern, errnoText } from './config-get.js';
import { fatal } from './context.js';
import { writeStderr } from './output.js';

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
  const name = parseVariableName(toBinary(write.key));
  let written = false;
  try {
    writeConfigFile(file, (text) => {
      let matches: ((v: string | null) => boolean) | undefined;
      if (write.pattern != null && text !== null) {
        // Prints git's error for an invalid expression.
        const p = compileValuePattern(write.pattern, false);
        if (!p || 'fixed' in p) return null;
        matches = (v) => p.negate !== (v !== null && p.re.test(fromBinary(v)));
      }
      const value = write.value === null ? null : toBinary(write.value);
      const result = writeVariable(text ?? '', file, { name, value, all: write.all ?? false, ...(matches ? { matches } : {}) });
      if ('text' in result) {
        written = true;
        return result.text;
      }
      if (result.refused === 'multiple-values') writeStderr(`warning: ${fromBinary(name.canonical)} has multiple values\n`);
      return null;
    });
  } catch (e) {
    if (!(e instanceof ConfigLockError)) throw e;
    writeStderr(`error: could not lock config file ${file}: ${errnoText(e.cause)}\n`);
  }
  return written;
}

/** git_config_set_multivar_in_file: as setMultivarGently, dying when nothing was written. */
export function setMultivar(file: string, write: MultivarWrite): void {
  if (setMultivarGently(file, write)) return;
  throw fatal(write.value === null ? `could not unset '${write.key}'` : `could not set '${write.key}' to '${write.value}'`);
}
