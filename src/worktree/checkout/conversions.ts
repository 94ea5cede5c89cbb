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
  warnings: string[];
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
  });
  // Each directory's frames, deepest first; a directory without its own file shares its parent's.
  const frames: AttrFrame[][] = new Array(dirs.length);
  frames[0] = checker.rootFrame ? [checker.rootFrame] : [];
  for (let d = 1; d < dirs.length; d++) {
    const dir = dirs[d]!;
    const inherited = frames[dir.parent]!;
    frames[d] = dir.attributes
      ? [checker.frameFor(dir.path, read(dir.attributes), `${displayPath(dir.path)}/.gitattributes`), ...inherited]
      : inherited;
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
  return { codes, encodings, filtered, warnings: checker.warnings };
}

/** git's "failed to encode" errors for the entries written since planning, in index order. */
export function encodingErrors(plan: CheckoutPlan, conversions: ConversionPlan | null): string[] {
  const errors: string[] = [];
  for (const [i, encoding] of conversions?.encodings ?? []) {
    if (conversions!.codes[i]! & CODE_ENCODE_FAILED) errors.push(encodeFailure(displayPath(entryPath(plan, i)), 'UTF-8', encoding));
  }
  return errors;
}
