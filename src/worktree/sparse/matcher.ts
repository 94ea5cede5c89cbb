// Whether a path is inside a sparse checkout, as git decides which index entries lose their
// skip-worktree bit (unpack-trees.c clear_ce_flags, dir.c path_matches_pattern_list):
//   cone mode:  a file is in when a directory above it is taken whole, when its own directory is
//               a parent directory of the cone, or when it is at the top level;
//   otherwise:  the last pattern that matches the path decides (a negative one: out); when none
//               does, the nearest directory above it that some pattern decides, as a directory;
//               when none, it is out.
import { MODE_GITLINK } from '../../object/tree.js';
import { matchesPathPattern, PATTERN_MUSTBEDIR, PATTERN_NEGATIVE } from '../path-pattern.js';
import { lstatOrNull } from '../switch/clean.js';
import { coneKey, type ConeSets, type SparsePatterns } from './patterns.js';

const UNDECIDED = -1, NOT_MATCHED = 0, MATCHED = 1, MATCHED_RECURSIVE = 2;
type Match = typeof UNDECIDED | typeof NOT_MATCHED | typeof MATCHED | typeof MATCHED_RECURSIVE;

const NO_BASE = new Uint8Array(0);
/** Bytes as a string of one char per byte, without a copy. */
const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');

export class SparseMatcher {
  /** Each directory's verdict as the parent of what it holds (non-cone), by its path. */
  private readonly dirVerdicts = new Map<string, boolean>();

  /** The cone sets as matched: folded when core.ignoreCase. */
  private readonly coneSets: ConeSets | null;

  constructor(readonly patterns: SparsePatterns, private readonly fold: boolean) {
    const cone = patterns.cone;
    const folded = (set: Set<string>): Set<string> => new Set([...set].map(k => coneKey(k, true)));
    this.coneSets = cone && fold ? { recursive: folded(cone.recursive), parent: folded(cone.parent), full: cone.full } : cone;
  }

  get cone(): boolean {
    return this.patterns.cone !== null;
  }

  /**
   * Whether `path` is in (not skip-worktree); `isDir` to match it as a directory (patterns ending
   * in '/' match only those).
   */
  includes(path: Uint8Array, isDir = false): boolean {
    const own = this.match(path, isDir);
    if (own !== UNDECIDED) return own > NOT_MATCHED;
    const slash = path.lastIndexOf(0x2f);
    return slash > 0 && this.dirIncludes(path.subarray(0, slash));
  }

  /**
   * Whether the index entry at `path` (under work tree `root`) is in. git 2.39 takes a submodule
   * for a directory only when its directory is there: its ce_to_dtype reads the mode
   * byte-swapped, so the type comes from lstat.
   */
  includesEntry(root: string, path: Uint8Array, mode: number): boolean {
    return this.includes(path, mode === MODE_GITLINK && lstatOrNull(Buffer.concat([Buffer.from(`${root}/`), path]))?.isDirectory() === true);
  }

  /**
   * Whether cone mode keeps directory `dir` (git's path_in_sparse_checkout of "dir/"): a parent
   * directory of the cone, or one taken whole or inside one. Outside cone mode, every one.
   */
  includesDirectory(dir: Uint8Array): boolean {
    const cone = this.coneSets;
    if (!cone || cone.full) return true;
    const key = '/' + coneKey(latin1(dir), this.fold);
    if (cone.parent.has(key)) return true;
    for (let s = key.length; s > 0; s = key.lastIndexOf('/', s - 1)) {
      if (cone.recursive.has(key.slice(0, s))) return true;
    }
    return false;
  }

  /** What holds for a path inside directory `dir` that no pattern decides. */
  private dirIncludes(dir: Uint8Array): boolean {
    const key = latin1(dir);
    let verdict = this.dirVerdicts.get(key);
    if (verdict === undefined) {
      const own = this.match(dir, true);
      if (own !== UNDECIDED) verdict = own > NOT_MATCHED;
      else {
        const slash = dir.lastIndexOf(0x2f);
        verdict = slash > 0 && this.dirIncludes(dir.subarray(0, slash));
      }
      this.dirVerdicts.set(key, verdict);
    }
    return verdict;
  }

  /** git's path_matches_pattern_list. */
  private match(path: Uint8Array, isDir: boolean): Match {
    const cone = this.coneSets;
    if (!cone) {
      const basename = path.lastIndexOf(0x2f) + 1;
      const list = this.patterns.patterns;
      for (let i = list.length - 1; i >= 0; i--) {
        const p = list[i]!;
        if ((p.flags & PATTERN_MUSTBEDIR) && !isDir) continue;
        if (matchesPathPattern(path, basename, p, NO_BASE, this.fold)) return p.flags & PATTERN_NEGATIVE ? NOT_MATCHED : MATCHED;
      }
      return UNDECIDED;
    }
    if (cone.full) return MATCHED;
    const key = '/' + coneKey(latin1(path), this.fold);
    if (cone.recursive.has(key)) return MATCHED_RECURSIVE;
    const slash = key.lastIndexOf('/');
    if (slash === 0) return MATCHED; // every file at the top level
    if (cone.parent.has(key.slice(0, slash))) return MATCHED;
    for (let s = slash; s > 0; s = key.lastIndexOf('/', s - 1)) {
      if (cone.recursive.has(key.slice(0, s))) return MATCHED_RECURSIVE;
    }
    return NOT_MATCHED;
  }
}
