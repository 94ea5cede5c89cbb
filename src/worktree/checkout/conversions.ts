// Which files a checkout converts on the way out (ident, end of line, encoding) and which a filter driver
// smudges, decided for every file before the first one is written, so that a required filter
// with nothing to run stops the checkout while the work tree is still untouched. Attributes come from the tree being checked out (the work tree is
// empty; git reads them from the new index in this direction), plus the files outside the tree.
import { MODE_BLOB, MODE_EXEC } from '../../object/tree.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { AttributeChecker, type AttrFrame } from '../attributes/check.js';
import { CODE_ENCODE_FAILED, CONVERT_ATTRIBUTES, Crlf, conversionCode, conversionFor, convertsAnything } from '../convert.js';
import { encodeFailure } from '../encoding.js';
import { smudgeDriverFor, type FilterDriver } from '../filter/driver.js';
import { displayPath } from './path-check.js';
import { entryPath, type CheckoutPlan } from './plan.js';
import type { CheckoutSettings } from './settings.js';
import type { FilteredEntries } from './write-filtered.js';

export interface ConversionPlan {
  /**
   * Per entry of the plan: how to convert it (convert.ts conversionCode), 0 to write the blob as it
   * is. Shared memory: writer threads mark the entries whose encoding failed.
   */
  codes: Uint8Array;
  /** The working-tree-encoding of each entry that has one, by entry index, ascending. */
  encodings: Map<number, string>;
  /** The entries a filter driver smudges; null when none does. */
  filtered: FilteredEntries | null;
  /** What git prints reading the top-level attributes files (AttributeChecker.topWarnings). */
  topWarnings: string[];
  /** Per directory (index in the plan's dirs) whose own .gitattributes git warns about: what it prints. */
  dirWarnings: Map<number, string[]>;
}

/** null when no file can need converting (no attributes anywhere and core.autocrlf off). */
export function planConversions(plan: CheckoutPlan, odb: ObjectStore, settings: CheckoutSettings,
  drivers: ReadonlyMap<string, FilterDriver> = new Map()): ConversionPlan | null {
  const { dirs } = plan;
  const rootAttrs = dirs[0]!.attributes;
  const anyDirAttrs = dirs.some(d => d.attributes !== null);
  if (!anyDirAttrs && !settings.infoAttributes && !settings.globalAttributes && !settings.systemAttributes &&
    settings.autocrlf === 'false') {
    return null;
  }
  const read = (oid: Uint8Array): Uint8Array => odb.mustRead(oid, 0, OBJ_BLOB).data;
  const checker = new AttributeChecker({
    info: settings.infoAttributes,
    root: rootAttrs ? read(rootAttrs) : null,
    global: settings.globalAttributes,
    system: settings.systemAttributes,
    ignoreCase: settings.ignoreCase,
    ...settings.globalAttributesName !== null ? { globalName: settings.globalAttributesName } : {},
  });
  const dirWarnings = new Map<number, string[]>();
  // Each directory's frames, deepest first; a directory without its own file shares its parent's.
  const frames: AttrFrame[][] = new Array(dirs.length);
  frames[0] = checker.rootFrame ? [checker.rootFrame] : [];
  for (let d = 1; d < dirs.length; d++) {
    const dir = dirs[d]!;
    const inherited = frames[dir.parent]!;
    if (!dir.attributes) {
      frames[d] = inherited;
      continue;
    }
    // git names the file by its path's bytes.
    const own = checker.frameFor(dir.path, read(dir.attributes), `${Buffer.from(dir.path).toString('utf8')}/.gitattributes`);
    if (own.warnings.length) dirWarnings.set(d, own.warnings);
    frames[d] = [own, ...inherited];
  }
  const codes = new Uint8Array(new SharedArrayBuffer(plan.count));
  const encodings = new Map<number, string>();
  let filtered: FilteredEntries | null = null;
  for (let i = 0; i < plan.count; i++) {
    const mode = plan.modes[i];
    if (mode !== MODE_BLOB && mode !== MODE_EXEC) continue; // symlinks and submodules are never converted
    const path = entryPath(plan, i);
    const values = checker.check(path, frames[plan.dirOf[i]!]!, CONVERT_ATTRIBUTES);
    const conv = conversionFor(values, settings, displayPath(path));
    // Text files keep their code even when checkout leaves them alone: a switch reads them back
    // through git's crlf_to_git.
    if (convertsAnything(conv, settings) || conv.crlf !== Crlf.Binary) codes[i] = conversionCode(conv);
    if (conv.encoding !== null) encodings.set(i, conv.encoding);
    const driver = drivers.size ? smudgeDriverFor(values, conv, drivers, displayPath(path)) : null;
    if (driver) {
      filtered ??= { marks: new Uint8Array(plan.count), driverOf: new Map() };
      filtered.marks[i] = 1;
      filtered.driverOf.set(i, driver);
    }
  }
  return { codes, encodings, filtered, topWarnings: checker.topWarnings, dirWarnings };
}

/**
 * What git prints on stderr as it writes `entries` (ascending plan indices; all of them when null),
 * in its order: it looks up the attributes of each regular file as it writes it, reading the
 * top-level attributes files at its first lookup and each directory's .gitattributes when it first
 * enters that directory, and printing what it finds wrong in them as it reads them (attr.c); then
 * a working-tree-encoding that fails for the file ("error: failed to encode").
 */
export function checkoutMessages(plan: CheckoutPlan, conversions: ConversionPlan | null,
  entries: readonly number[] | null = null): string[] {
  if (!conversions) return [];
  const out: string[] = [];
  const anyWarnings = conversions.topWarnings.length > 0 || conversions.dirWarnings.size > 0;
  let bootstrapped = false;
  const entered = new Set<number>([0]);
  const enter = (d: number): void => {
    if (entered.has(d)) return;
    enter(plan.dirs[d]!.parent);
    entered.add(d);
    const lines = conversions.dirWarnings.get(d);
    if (lines) out.push(...lines);
  };
  const count = entries ? entries.length : plan.count;
  for (let k = 0; k < count; k++) {
    const i = entries ? entries[k]! : k;
    const mode = plan.modes[i];
    if (anyWarnings && (mode === MODE_BLOB || mode === MODE_EXEC)) {
      if (!bootstrapped) {
        bootstrapped = true;
        out.push(...conversions.topWarnings);
      }
      enter(plan.dirOf[i]!);
    }
    const encoding = conversions.encodings.get(i);
    if (encoding !== undefined && conversions.codes[i]! & CODE_ENCODE_FAILED) {
      out.push(`error: ${encodeFailure(displayPath(entryPath(plan, i)), 'UTF-8', encoding)}`);
    }
  }
  return out;
}
