// Values read or written with `tsgit config --type=<type>`, as git shows and stores them
// (builtin/config.c format_config and normalize_value): booleans as true/false, integers with their
// unit applied, a path expanded as git_config_pathname does, an expiry date as seconds, a color as
// its escape sequence. git dies at once on a bad number or boolean; for a bad path,
// date or color it reports an error and lets its caller die, which says what it was doing.
import { parseColor } from '../config/color.js';
import { configPathname } from '../config/interpolate-path.js';
import { parseBool, parseSigned } from '../config/index.js';
import { parseBoolText } from '../config/values.js';
import { parseApproxDate } from '../core/approxidate.js';
import { GitError } from '../core/errors.js';
import { fatal } from './context.js';

export const VALUE_TYPES = ['bool', 'int', 'bool-or-int', 'bool-or-str', 'path', 'expiry-date', 'color'] as const;
export type ValueType = typeof VALUE_TYPES[number];

const INT32_MAX = 2n ** 31n - 1n;
const INT64_MAX = 2n ** 63n - 1n;
/** git's TIME_MAX, the expiry date "now" and "all" stand for. */
const TIME_MAX = '18446744073709551615';

/** A value git reports as an error (a path, date or color it cannot read); its caller dies after it. */
export class ValueError extends GitError {
  constructor(message: string) {
    super('cli', 'bad-value', message);
  }
}

/**
 * `value` of variable `name` shown as `type`. `where` says where it was read, for the message of a
 * bad number ("file .git/config"; null for the command line or a value given on it).
 */
export function typedValue(type: ValueType, name: string, value: string | null, where: string | null, env: NodeJS.ProcessEnv): string {
  switch (type) {
    case 'int':
      return String(integer(name, value ?? '', INT64_MAX, where));
    case 'bool':
      return String(boolean(name, value));
    case 'bool-or-int': {
      const b = parseBoolText(value);
      return b !== null ? String(b) : String(integer(name, value, INT32_MAX, where));
    }
    case 'bool-or-str': {
      const b = parseBool(value);
      return b !== null ? String(b) : value!;
    }
    case 'path':
      return configPathname(nonNull(name, value), env);
    case 'expiry-date':
      return expiryDate(name, nonNull(name, value));
    case 'color': {
      const color = parseColor(nonNull(name, value));
      if (color === null) throw new ValueError(`invalid color value: ${value}`);
      return color;
    }
  }
}

/** `value` as git stores it for `--type=<type>`: booleans and numbers canonical, a color checked, others as given. */
export function normalizedValue(type: ValueType | null, name: string, value: string, env: NodeJS.ProcessEnv): string {
  switch (type) {
    case null: case 'path': case 'expiry-date':
      return value;
    case 'color':
      try {
        typedValue(type, name, value, null, env);
      } catch (e) {
        if (!(e instanceof ValueError)) throw e;
        process.stderr.write(`error: ${e.message}\n`);
        throw fatal(`cannot parse color '${value}'`);
      }
      return value;
    default:
      return typedValue(type, name, value, null, env);
  }
}

function integer(name: string, value: string | null, max: bigint, where: string | null): bigint {
  const n = parseSigned(value, max);
  if (typeof n === 'bigint') return n;
  throw fatal(`bad numeric config value '${value ?? ''}' for '${name}'${where === null ? '' : ` in ${where}`}: ${n}`);
}

function boolean(name: string, value: string | null): boolean {
  const b = parseBool(value);
  if (b === null) throw fatal(`bad boolean config value '${value}' for '${name}'`);
  return b;
}

function nonNull(name: string, value: string | null): string {
  if (value === null) throw new ValueError(`missing value for '${name}'`);
  return value;
}

/** git's parse_expiry_date: never/false is 0, now/all everything, anything else a date. */
function expiryDate(name: string, value: string): string {
  if (value === 'never' || value === 'false') return '0';
  if (value === 'all' || value === 'now') return TIME_MAX;
  try {
    return String(parseApproxDate(value));
  } catch {
    throw new ValueError(`'${value}' for '${name}' is not a valid timestamp`);
  }
}
