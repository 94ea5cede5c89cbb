// `.gitmodules` as git's submodule-config.c reads it: `[submodule "<name>"]` sections with the path,
// url, update and shallow that checkout-mode updates use (branch, ignore and fetchRecurseSubmodules
// serve commands tsgit does not have). What git ignores with a warning, so is it here:
//   - a name that is empty or has a `..` component (check_submodule_name, CVE-2018-11235: the name
//     becomes the directory `.git/modules/<name>`, and `../../hooks` would reach out of it);
//   - a path or url that starts with `-` (looks_like_command_line_option, CVE-2018-17456: git
//     passes both to `git clone`, where they would be read as options).
// The entry is then missing, and a command that needs it fails on that ("No url found ...").
// Later values win, as for the work-tree file in git (its `overwrite` mode).
import { parseBool, parseSigned } from '../../config/index.js';
import { parseConfig } from '../../config/parse.js';
import { GitError } from '../../core/errors.js';
import { isSafeSubmoduleName } from '../../object/gitmodules.js';

export type UpdateStrategy = 'checkout' | 'rebase' | 'merge' | 'none' | `!${string}`;

export interface Submodule {
  readonly name: string;
  path: string | null;
  url: string | null;
  update: UpdateStrategy | null;
  /** submodule.<name>.shallow: clone with --depth 1 unless told otherwise. */
  shallow: boolean | null;
}

export interface Gitmodules {
  readonly byName: ReadonlyMap<string, Submodule>;
  /** `[submodule] fetchJobs`, the one setting git takes from `.gitmodules` outside a submodule's section. */
  readonly fetchJobs: number | null;
  /** The submodule whose path is `path`, if any. */
  byPath(path: string): Submodule | null;
}

const fromBinary = (s: string) => Buffer.from(s, 'latin1').toString('utf8');


/** git's parse_submodule_update_type plus `!command`; null for anything else. */
export function parseUpdateStrategy(value: string): UpdateStrategy | null {
  if (value === 'checkout' || value === 'rebase' || value === 'merge' || value === 'none') return value;
  if (value.startsWith('!') && value.length > 1) return value as UpdateStrategy;
  return null;
}

/**
 * Parses `.gitmodules` bytes; `label` names the source in messages, `warn` gets git's warnings
 * (without the "warning: " prefix).
 */
export function parseGitmodules(bytes: Uint8Array, label: string, warn: (message: string) => void): Gitmodules {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  const parsed = parseConfig(text, label);
  const byName = new Map<string, Submodule>();
  let fetchJobs: number | null = null;
  for (const e of parsed.entries) {
    const s = parsed.sections[e.sectionIndex];
    if (s?.section === 'submodule' && s.subsection === null && e.key === 'fetchjobs') {
      const n = parseSigned(e.value);
      if (typeof n !== 'bigint') throw badValue(label, `bad numeric config value '${e.value ?? ''}' for 'submodule.fetchjobs': ${n}`);
      if (n < 0n) throw badValue(label, 'negative values not allowed for submodule.fetchjobs');
      fetchJobs = Number(n);
      continue;
    }
    if (!s || s.section !== 'submodule' || s.subsection === null) continue;
    const name = fromBinary(s.subsection);
    if (!isSafeSubmoduleName(name)) {
      warn(`ignoring suspicious submodule name: ${name}`);
      continue;
    }
    let sub = byName.get(name);
    if (!sub) {
      sub = { name, path: null, url: null, update: null, shallow: null };
      byName.set(name, sub);
    }
    const value = e.value === null ? null : fromBinary(e.value);
    const variable = `submodule.${name}.${e.key}`;
    switch (e.key) {
      case 'path':
      case 'url':
        if (value === null) throw badValue(label, `missing value for '${variable}'`);
        // git's looks_like_command_line_option
        if (value.startsWith('-')) warn(`ignoring '${variable}' which may be interpreted as a command-line option: ${value}`);
        else sub[e.key] = value;
        break;
      case 'update': {
        // A `!command` is kept only to be refused: init registers it as `none`, as git does.
        const strategy = value === null ? null : parseUpdateStrategy(value);
        if (strategy === null) throw badValue(label, `invalid value for ${variable}`);
        sub.update = strategy;
        break;
      }
      case 'shallow': {
        const b = parseBool(value);
        if (b === null) throw badValue(label, `bad boolean config value '${value}' for '${variable}'`);
        sub.shallow = b;
        break;
      }
    }
  }
  const paths = new Map<string, Submodule>();
  for (const sub of byName.values()) if (sub.path !== null) paths.set(sub.path, sub);
  return { byName, fetchJobs, byPath: (p) => paths.get(p) ?? null };
}

function badValue(label: string, why: string): GitError {
  return new GitError('client', 'bad-gitmodules', `${label}: ${why}`);
}
