// Whether a work tree is sparse: core.sparseCheckout on and its $GIT_DIR/info/sparse-checkout
// readable (without the file git checks out everything, as if the setting were off), matched in
// cone mode when core.sparseCheckoutCone says so (off by default when reading, as in git 2.39).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { MODE_BLOB, MODE_EXEC, MODE_SYMLINK } from '../../object/tree.js';
import { SparseMatcher } from './matcher.js';
import { parseSparsePatterns } from './patterns.js';

/** The work tree's own patterns file (per work tree: a linked one has its own). */
export function sparseCheckoutFile(gitDir: string): string {
  return path.join(gitDir, 'info', 'sparse-checkout');
}

/** The patterns a sparse checkout starts with (git's init): every file at the top level, no directory. */
export const TOP_LEVEL_PATTERNS = ['/*', '!/*/'] as const;
export const TOP_LEVEL_TEXT = TOP_LEVEL_PATTERNS.map(p => `${p}\n`).join('');

/**
 * Writes the patterns file as it first is (TOP_LEVEL_TEXT), for a repository with nothing checked
 * out yet (a clone, a repository without commits): no work tree to bring in line, so no lock.
 */
export function writeFirstPatterns(gitDir: string): void {
  const file = sparseCheckoutFile(gitDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, TOP_LEVEL_TEXT);
}

/** The file's bytes; null when it does not exist. */
export function readSparseCheckoutFile(gitDir: string): Buffer | null {
  try {
    return fs.readFileSync(sparseCheckoutFile(gitDir));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

/** core.sparseCheckoutCone as git reads it. */
export function coneModeOf(config: Config): boolean {
  return config.getBool('core', null, 'sparsecheckoutcone') ?? false;
}

/**
 * The matcher a checkout applies, or null when the work tree is not sparse. `warn` gets git's
 * warnings about lines that turn cone mode off.
 */
export function readSparseCheckout(config: Config, gitDir: string, warn: (line: string) => void): SparseMatcher | null {
  if (!config.getBool('core', null, 'sparsecheckout')) return null;
  const text = readSparseCheckoutFile(gitDir);
  if (!text) return null;
  const fold = config.getBool('core', null, 'ignorecase') ?? false;
  return new SparseMatcher(parseSparsePatterns(text, coneModeOf(config), warn), fold);
}

/**
 * The pattern warnings a checkout prints: git reads the patterns once to apply them, and once
 * more for the new index as soon as it looks up the attributes of a file it writes (the checkout
 * of a regular file; of a symlink too when core.symlinks is off). `written` lists the entries
 * written among `modes` (null: all of them).
 */
export function patternWarnings(lines: readonly string[], modes: ArrayLike<number>, written: readonly number[] | null, symlinks: boolean): string[] {
  if (!lines.length) return [];
  const count = written ? written.length : modes.length;
  for (let k = 0; k < count; k++) {
    const mode = modes[written ? written[k]! : k]!;
    if (mode === MODE_BLOB || mode === MODE_EXEC || (mode === MODE_SYMLINK && !symlinks)) return [...lines, ...lines];
  }
  return [...lines];
}
