// The patterns of a sparse-checkout file as git reads them (dir.c add_patterns_from_buffer,
// add_pattern, add_pattern_to_hashsets): gitignore-style lines, in order, and, when cone mode is
// asked for and every line is a cone pattern, the two sets cone mode matches with: the
// directories taken whole ("recursive", from "/dir/") and those whose own files only are in
// ("parent", from "/dir/" followed by "!/dir/*/"). Any other line turns cone matching off for
// the file, with git's warnings, and the lines are matched as gitignore patterns instead.
import { isGlobSpecial, parsePathPattern, PATTERN_MUSTBEDIR, PATTERN_NEGATIVE, type PathPattern } from '../path-pattern.js';

export interface ConeSets {
  /** Directories whose whole content is in, as "/a/b" (escapes removed; one char per byte). */
  recursive: Set<string>;
  /** Directories whose own files are in, not their subdirectories. */
  parent: Set<string>;
  /** "/*" without "!/*\/": everything is in. */
  full: boolean;
}

export interface SparsePatterns {
  /** The lines in file order (what non-cone matching and `sparse-checkout list` use). */
  patterns: PathPattern[];
  /** Set when cone mode is on and every line is a cone pattern. */
  cone: ConeSets | null;
}

/** A path as the cone sets hold it, ASCII folded when core.ignoreCase (git's fspathcmp). */
export function coneKey(path: string, fold: boolean): string {
  return fold ? path.replace(/[A-Z]+/g, m => m.toLowerCase()) : path;
}

/** git's trim_trailing_spaces: unescaped spaces at the end go. */
function trimTrailingSpaces(line: Uint8Array): Uint8Array {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === 0x20) {
      if (lastSpace < 0) lastSpace = i;
    } else if (c === 0x5c) {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else {
      lastSpace = -1;
    }
  }
  return lastSpace < 0 ? line : line.subarray(0, lastSpace);
}

/** The lines of a patterns file as git takes them: no BOM, comments, empty lines or CR, trailing spaces trimmed. */
export function patternLines(text: Uint8Array): Uint8Array[] {
  let start = text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf ? 3 : 0;
  const lines: Uint8Array[] = [];
  while (start < text.length) {
    let end = text.indexOf(0x0a, start);
    if (end < 0) end = text.length;
    if (end > start && text[start] !== 0x23) {
      let line = text.subarray(start, end > start && text[end - 1] === 0x0d ? end - 1 : end);
      // git holds each line as a C string.
      const nul = line.indexOf(0);
      if (nul >= 0) line = line.subarray(0, nul);
      lines.push(trimTrailingSpaces(line));
    }
    start = end + 1;
  }
  return lines;
}

/** git's dup_and_filter_pattern: escapes removed, and a trailing "/*" dropped. */
function unescaped(pattern: Uint8Array): string {
  const out: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === 0x5c) i++;
    if (i < pattern.length) out.push(pattern[i]!);
  }
  const n = out.length;
  if (n > 2 && out[n - 1] === 0x2a && out[n - 2] === 0x2f) out.length = n - 2;
  return Buffer.from(out).toString('latin1');
}

/** Why `p` is no cone pattern (git's add_pattern_to_hashsets), or null when it is one. */
function coneProblem(p: PathPattern, cone: ConeSets): string | null {
  const text = Buffer.from(p.pattern).toString('latin1');
  const negative = (p.flags & PATTERN_NEGATIVE) !== 0;
  const mustBeDir = (p.flags & PATTERN_MUSTBEDIR) !== 0;
  if (negative && mustBeDir && text === '/*') {
    cone.full = false;
    return null;
  }
  if (!negative && !mustBeDir && text === '/*') {
    cone.full = true;
    return null;
  }
  const unrecognized = `unrecognized pattern: '${shown(p)}'`;
  if (p.pattern.length < 2 || text[0] !== '/' || text.includes('**')) return unrecognized;
  if (!mustBeDir) return unrecognized;
  // Wildcards only as escaped characters, or as the "/*" that ends a parent pattern.
  const at = (k: number): number => (k < p.pattern.length ? p.pattern[k]! : 0);
  for (let k = 1; k < p.pattern.length; k++) {
    const cur = at(k), prev = at(k - 1), next = at(k + 1);
    if (!isGlobSpecial(cur) || prev === 0x5c) continue;
    if (cur === 0x5c && isGlobSpecial(next)) continue;
    if (prev === 0x2f && cur === 0x2a && next === 0) continue;
    return unrecognized;
  }
  const key = unescaped(p.pattern);
  if (p.pattern.length > 2 && text.endsWith('/*')) {
    if (!negative) return unrecognized;
    if (!cone.recursive.has(key)) return `your sparse-checkout file may have issues: pattern '${shown(p)}' is repeated`;
    cone.recursive.delete(key);
    cone.parent.add(key);
    return null;
  }
  if (negative) return `unrecognized negative pattern: '${shown(p)}'`;
  cone.recursive.add(key);
  if (cone.parent.has(key)) return `your sparse-checkout file may have issues: pattern '${shown(p)}' is repeated`;
  return null;
}

/** A pattern as git's warnings show it: without its '!' and trailing '/'. */
function shown(p: PathPattern): string {
  return Buffer.from(p.pattern).toString('utf8');
}

/**
 * Reads a sparse-checkout file. `cone` is core.sparseCheckoutCone; `warn` receives git's warnings
 * (each a "warning: ..." line) when a line turns cone matching off.
 */
export function parseSparsePatterns(text: Uint8Array, cone: boolean, warn: (line: string) => void): SparsePatterns {
  const patterns = patternLines(text).map(line => parsePathPattern(line, true));
  if (!cone) return { patterns, cone: null };
  const sets: ConeSets = { recursive: new Set(), parent: new Set(), full: false };
  for (const p of patterns) {
    const problem = coneProblem(p, sets);
    if (problem !== null) {
      warn(`warning: ${problem}`);
      warn('warning: disabling cone pattern matching');
      return { patterns, cone: null };
    }
  }
  return { patterns, cone: sets };
}
