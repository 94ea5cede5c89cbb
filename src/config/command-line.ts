// Configuration given on the command line (`tsgit -c name=value`), as git passes it on to every
// command it runs: in $GIT_CONFIG_PARAMETERS, each `'name'='value'` (`'name'=` for a bare
// boolean) single-quoted as sq_quote does and separated by spaces, and in $GIT_CONFIG_COUNT
// with $GIT_CONFIG_KEY_<n> / $GIT_CONFIG_VALUE_<n>. These win over every file (git's command
// scope), and reach the commands tsgit runs for itself (a local upload-pack) by the environment.
import { GitError } from '../core/errors.js';
import type { ConfigEntry } from './read.js';

const FILE = 'command line';

/** `name` split as git_config_parse_key does: section and key lower-cased, subsection as given. */
export function parseConfigKey(name: string): { section: string; subsection: string | null; key: string } {
  const first = name.indexOf('.');
  const last = name.lastIndexOf('.');
  if (first <= 0) throw new GitError('config', 'bad-key', `key does not contain a section: ${name}`);
  if (last === name.length - 1) throw new GitError('config', 'bad-key', `key does not contain variable name: ${name}`);
  const section = name.slice(0, first);
  const key = name.slice(last + 1);
  if (!/^[A-Za-z0-9.-]+$/.test(section) || !/^[A-Za-z][A-Za-z0-9-]*$/.test(key)) {
    throw new GitError('config', 'bad-key', `invalid key: ${name}`);
  }
  return { section: section.toLowerCase(), subsection: first === last ? null : name.slice(first + 1, last), key: key.toLowerCase() };
}

/** A setting as `-c` gives it: a value, or null for a bare `name` (a boolean true). */
export interface ConfigSetting {
  readonly section: string;
  readonly subsection: string | null;
  readonly key: string;
  readonly value: string | null;
}

/** `name=value`, or a bare `name`, as `git -c` and `git clone -c` read it; `name` is as given. */
export function parseConfigSetting(setting: string): ConfigSetting & { readonly name: string } {
  const eq = setting.indexOf('=');
  const name = eq < 0 ? setting : setting.slice(0, eq);
  return { name, ...parseConfigKey(name), value: eq < 0 ? null : setting.slice(eq + 1) };
}

/** git's sq_quote: the text in single quotes, with `'` and `!` taken out of them. */
function sqQuote(text: string): string {
  return `'${text.replace(/['!]/g, (c) => `'\\${c}'`)}'`;
}

/** $GIT_CONFIG_PARAMETERS with `name=value` (or a bare `name`) added, as `git -c` does. */
export function addConfigParameter(current: string | undefined, setting: string): string {
  const { name, value } = parseConfigSetting(setting);
  // `'name'=` with nothing after it is a bare boolean, `'name'=''` the empty string (git 2.31+).
  const quoted = value === null ? `${sqQuote(name)}=` : `${sqQuote(name)}=${sqQuote(value)}`;
  return current ? `${current} ${quoted}` : quoted;
}

/** The settings in $GIT_CONFIG_PARAMETERS, then $GIT_CONFIG_COUNT's, in order. */
export function commandLineEntries(env: NodeJS.ProcessEnv): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  const add = (name: string, value: string | null) => {
    const { section, subsection, key } = parseConfigKey(name);
    out.push({ section, subsection, key, value, file: FILE, line: out.length + 1, scope: 'command' });
  };
  const params = env.GIT_CONFIG_PARAMETERS;
  if (params) for (const [name, value] of splitParameters(params)) add(name, value);
  const count = env.GIT_CONFIG_COUNT;
  if (count !== undefined && count !== '') {
    if (!/^[0-9]+$/.test(count)) throw new GitError('config', 'bad-value', `bogus count in GIT_CONFIG_COUNT: ${count}`);
    for (let i = 0; i < Number(count); i++) {
      const name = env[`GIT_CONFIG_KEY_${i}`];
      const value = env[`GIT_CONFIG_VALUE_${i}`];
      if (name === undefined || name === '') throw new GitError('config', 'bad-value', `missing config key GIT_CONFIG_KEY_${i}`);
      if (value === undefined) throw new GitError('config', 'bad-value', `missing config value GIT_CONFIG_VALUE_${i}`);
      add(name, value);
    }
  }
  return out;
}

/**
 * git's parse_config_env_list: sq-quoted words; `'name'='value'` is one setting, as is the older
 * `'name=value'`, and `'name'` alone a bare boolean.
 */
function splitParameters(text: string): [string, string | null][] {
  const bad = () => new GitError('config', 'bad-value', `bogus format in GIT_CONFIG_PARAMETERS: ${text}`);
  const out: [string, string | null][] = [];
  let i = 0;
  const word = (): string => {
    let s = '';
    for (;;) {
      if (text[i] !== "'") throw bad();
      const close = text.indexOf("'", i + 1);
      if (close < 0) throw bad();
      s += text.slice(i + 1, close);
      i = close + 1;
      // `'\''` and `'\!'` put a quote or a bang between two quoted runs.
      if (text[i] === '\\' && (text[i + 1] === "'" || text[i + 1] === '!') && text[i + 2] === "'") {
        s += text[i + 1];
        i += 2;
        continue;
      }
      return s;
    }
  };
  while (i < text.length) {
    while (text[i] === ' ') i++;
    if (i >= text.length) break;
    const first = word();
    if (text[i] === '=') {
      i++;
      out.push([first, text[i] === "'" ? word() : null]);
    } else {
      const eq = first.indexOf('=');
      out.push(eq < 0 ? [first, null] : [first.slice(0, eq), first.slice(eq + 1)]);
    }
    if (i < text.length && text[i] !== ' ') throw bad();
  }
  return out;
}
