// Filter drivers (gitattributes(5) "filter"): `filter.<driver>.smudge`, `.clean`, `.process` and
// `.required` from the configuration, and what a checkout does with a path whose `filter`
// attribute names one. git's rules (convert.c apply_filter, classify_conv_attrs, entry.c):
//   - a name no `filter.<name>.*` variable mentions is no driver: the content passes through;
//   - a `process` command, when set, takes over from `smudge` and `clean` (even an empty one);
//   - a driver with nothing to run passes the content through, except that with `required` set
//     git's checkout dies ("smudge filter <name> failed") unless the file takes its streaming
//     path: no `clean` or `process` configured, no text=auto and no working-tree-encoding.
import { GitError } from '../../core/errors.js';
import { missingValue } from '../../config/config.js';
import type { Config } from '../../config/index.js';
import { parseBool } from '../../config/values.js';
import type { AttrValue } from '../attributes/rules.js';
import { Crlf, type Conversion } from '../convert.js';

export interface FilterDriver {
  name: string;
  /** As configured: null when unset, '' when set to nothing (which runs nothing). */
  smudge: string | null;
  clean: string | null;
  process: string | null;
  required: boolean;
}

/** Every `filter.<name>.*` driver of `config` (subsection names are case-sensitive, as in git). */
export function readFilterDrivers(config: Config): Map<string, FilterDriver> {
  const drivers = new Map<string, FilterDriver>();
  for (const e of config.list()) {
    if (e.section !== 'filter' || e.subsection === null) continue;
    let d = drivers.get(e.subsection);
    if (!d) drivers.set(e.subsection, d = { name: e.subsection, smudge: null, clean: null, process: null, required: false });
    if (e.key === 'smudge' || e.key === 'clean' || e.key === 'process') {
      if (e.value === null) throw missingValue(e);
      d[e.key] = e.value;
    } else if (e.key === 'required') {
      const b = parseBool(e.value);
      if (b === null) {
        throw new GitError('config', 'bad-value',
          `bad boolean config value '${e.value}' for 'filter.${e.subsection}.required' in file ${e.file} line ${e.line}`);
      }
      d.required = b;
    }
  }
  return drivers;
}

/** The single-file command that smudges (or cleans) for `driver`, or null (git's apply_filter). */
export function filterCommand(driver: FilterDriver, direction: 'smudge' | 'clean'): string | null {
  if (driver.process !== null) return null;
  return driver[direction] || null;
}

/** The long-running process command of `driver`, or null. */
export function processCommand(driver: FilterDriver): string | null {
  return driver.process || null;
}

/** Whether `driver` has anything to run for `direction`. */
export function runsFor(driver: FilterDriver, direction: 'smudge' | 'clean'): boolean {
  return filterCommand(driver, direction) !== null || processCommand(driver) !== null;
}

/**
 * The driver that smudges `path` on checkout, or null when its content passes through. Throws
 * git's fatal error for a required driver with nothing to run where git's checkout dies, so that
 * the checkout stops before it writes anything.
 */
export function smudgeDriverFor(values: Map<string, AttrValue>, conv: Conversion,
  drivers: ReadonlyMap<string, FilterDriver>, path: string): FilterDriver | null {
  const name = values.get('filter');
  if (typeof name !== 'string') return null;
  const driver = drivers.get(name);
  if (!driver) return null;
  if (runsFor(driver, 'smudge')) return driver;
  if (driver.required && !streamable(driver, values, conv)) {
    throw requiredFilterFailed('smudge', path, driver);
  }
  return null;
}

/** git's classify_conv_attrs == CA_CLASS_STREAMABLE, for a driver that runs nothing. */
function streamable(driver: FilterDriver, values: Map<string, AttrValue>, conv: Conversion): boolean {
  if (driver.process !== null || driver.smudge !== null || driver.clean !== null) return false;
  const encoding = values.get('working-tree-encoding');
  if (typeof encoding === 'string' && encoding !== '' && !/^utf-?8$/i.test(encoding)) return false;
  return conv.crlf !== Crlf.Auto && conv.crlf !== Crlf.AutoCrlf;
}

/** git's fatal error for a required filter that failed on `path`. */
export function requiredFilterFailed(direction: 'smudge' | 'clean', path: string, driver: FilterDriver): GitError {
  return new GitError('worktree', 'filter-failed', direction === 'smudge'
    ? `${path}: smudge filter ${driver.name} failed`
    : `${path}: clean filter '${driver.name}' failed`);
}
