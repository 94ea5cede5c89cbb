// Object validation the way git's fsck.c does it, for index-pack (objects arriving from a stranger)
// and checkout (before anything reaches the disk). Each check reads the raw object content and
// reports problems under git's own message ids and default severities, so `index-pack --strict`
// refuses exactly what git's would, and a user can look an id up in git's fsck-msgids page.
//
// The parsing deliberately mirrors git's, quirks included: which problems git reports for a given
// malformed object depends on where its parser stops, and matching git is the point.
import { CorruptError } from '../core/errors.js';
import type { ObjectType } from '../core/hash.js';
import { OID_BYTES } from '../core/oid.js';
import {
  isDotGit, isDotGitattributes, isDotGitignore, isDotGitmodules, isDotMailmap, mayNameDotFile,
} from './path-names.js';

/** git's message levels: fatal cannot be lowered, info is shown as a warning but never promoted. */
export type FsckLevel = 'fatal' | 'error' | 'warn' | 'info' | 'ignore';

/** git's default level for every message id these checks can produce (git's fsck.h). */
export const FSCK_LEVELS = {
  nulInHeader: 'fatal',
  unterminatedHeader: 'fatal',
  badDate: 'error',
  badDateOverflow: 'error',
  badEmail: 'error',
  badName: 'error',
  badObjectSha1: 'error',
  badParentSha1: 'error',
  badTimezone: 'error',
  badTree: 'error',
  badTreeSha1: 'error',
  badType: 'error',
  duplicateEntries: 'error',
  gitmodulesBlob: 'error',
  gitmodulesLarge: 'error',
  gitmodulesMissing: 'error',
  gitmodulesName: 'error',
  gitmodulesPath: 'error',
  gitmodulesSymlink: 'error',
  gitmodulesUpdate: 'error',
  gitmodulesUrl: 'error',
  missingAuthor: 'error',
  missingCommitter: 'error',
  missingEmail: 'error',
  missingNameBeforeEmail: 'error',
  missingObject: 'error',
  missingSpaceBeforeDate: 'error',
  missingSpaceBeforeEmail: 'error',
  missingTag: 'error',
  missingTagEntry: 'error',
  missingTree: 'error',
  missingType: 'error',
  missingTypeEntry: 'error',
  multipleAuthors: 'error',
  treeNotSorted: 'error',
  zeroPaddedDate: 'error',
  fullPathname: 'warn',
  hasDot: 'warn',
  hasDotdot: 'warn',
  hasDotgit: 'warn',
  largePathname: 'warn',
  nullSha1: 'warn',
  nulInCommit: 'warn',
  zeroPaddedFilemode: 'warn',
  badFilemode: 'info',
  badTagName: 'info',
  gitmodulesParse: 'info',
  gitattributesSymlink: 'info',
  gitignoreSymlink: 'info',
  mailmapSymlink: 'info',
  missingTaggerEntry: 'info',
  extraHeaderEntry: 'ignore',
} as const satisfies Record<string, FsckLevel>;

export type FsckMsgId = keyof typeof FSCK_LEVELS;

export type FsckSeverity = 'error' | 'warning';

export interface FsckProblem {
  id: FsckMsgId;
  severity: FsckSeverity;
  message: string;
}

export type FsckOverrides = Partial<Record<FsckMsgId, 'error' | 'warn' | 'ignore'>>;

export interface FsckOptions {
  /**
   * git's `--strict` (what index-pack runs with when receive/fetch.fsckObjects is on): warnings
   * become errors, and the historical mode 100664 becomes a bad mode. Infos stay warnings.
   */
  strict?: boolean;
  /** Per-id levels, like git's `fsck.<msg-id>` settings. Fatal ids ignore them, as git refuses. */
  levels?: FsckOverrides;
  /** Objects (hex ids) whose problems are not reported, git's fsck.skipList. */
  skip?: ReadonlySet<string>;
}

/**
 * Where tsgit refuses more than git: git only mentions these (level info), yet a mode no
 * filesystem has and a `.gitattributes`/`.gitignore`/`.mailmap` symlink pointing out of the work
 * tree are both on the list of things tsgit never accepts. Pass as `levels`.
 */
export const HARDENED_LEVELS: FsckOverrides = {
  badFilemode: 'error',
  gitattributesSymlink: 'error',
  gitignoreSymlink: 'error',
  mailmapSymlink: 'error',
};

/** Collects problems; `add` says whether the problem is an error, after which git stops parsing. */
export class FsckReport {
  readonly problems: FsckProblem[] = [];
  constructor(private readonly options: FsckOptions) {}

  add(id: FsckMsgId, message: string): boolean {
    const base: FsckLevel = FSCK_LEVELS[id];
    let level: FsckLevel = base;
    if (base !== 'fatal') {
      const override = this.options.levels?.[id];
      if (override) level = override;
      else if (this.options.strict && base === 'warn') level = 'error';
    }
    if (level === 'ignore') return false;
    const severity: FsckSeverity = level === 'fatal' || level === 'error' ? 'error' : 'warning';
    this.problems.push({ id, severity, message });
    return severity === 'error';
  }
}

const LF = 0x0a, SPACE = 0x20, TAB = 0x09, SLASH = 0x2f, DOT = 0x2e, ZERO = 0x30;
const S_IFMT = 0o170000, S_IFDIR = 0o040000, S_IFLNK = 0o120000, S_IFGITLINK = 0o160000;
const S_IFREG = 0o100000;

/** git's default fsck.largePathname limit, in bytes of one entry name. */
const MAX_TREE_ENTRY_LEN = 4096;

/** The first `byte` in buf[start, end), or -1 (indexOf would scan on through the whole tree). */
function indexOfIn(buf: Uint8Array, byte: number, start: number, end: number): number {
  for (let i = start; i < end; i++) if (buf[i] === byte) return i;
  return -1;
}

function quote(buf: Uint8Array, start: number, end: number): string {
  return JSON.stringify(Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8'));
}

// ---- trees ---------------------------------------------------------------------------------------

/** One decoded tree entry; reused across the walk so checking a tree allocates little. */
class Entry {
  start = 0;
  mode = 0;
  nameStart = 0;
  nameEnd = 0;
  next = 0;
}

/** checkTree's entries (the current, the next and the one before) and its list of names to compare. */
const ENTRIES = [new Entry(), new Entry(), new Entry()];
const CANDIDATES: number[] = [];

/** git's decode_tree_entry: fills `e` with the entry at `pos`, or says why it cannot. */
function decodeEntry(buf: Uint8Array, pos: number, e: Entry): string | null {
  const end = buf.length;
  // Like git, insist first that the byte 21 before the end is a NUL: that bounds every later scan
  // (the mode stops at it, the name ends at or before it, and 20 id bytes always follow).
  if (end - pos < OID_BYTES + 3 || buf[end - OID_BYTES - 1] !== 0) {
    return `too-short tree object at offset ${pos}`;
  }
  if (buf[pos] === SPACE) return `malformed mode in tree entry at offset ${pos}`;
  let mode = 0, i = pos;
  for (;;) {
    const c = buf[i++]!;
    if (c === SPACE) break;
    if (c < ZERO || c > ZERO + 7) return `malformed mode in tree entry at offset ${pos}`;
    mode = mode * 8 + (c - ZERO);
  }
  // Git's parser rejects an empty name before fsck could call it emptyName, so this is badTree.
  if (buf[i] === 0) return `empty filename in tree entry at offset ${pos}`;
  const nul = buf.indexOf(0, i);
  e.start = pos;
  e.mode = mode;
  e.nameStart = i;
  e.nameEnd = nul;
  e.next = nul + 1 + OID_BYTES;
  return null;
}

const TREE_ORDERED = 0, TREE_UNORDERED = 1, TREE_HAS_DUPS = 2;

const isLessThanSlash = (c: number): boolean => c > 0 && c < SLASH;

/**
 * git's verify_ordered. Trees sort by name with a directory compared as if it ended in '/', so a
 * blob `a` and a tree `a` need not be neighbours (`a`, `a.c`, `a/`): names that could still meet
 * a same-named directory further on wait on `candidates` (start, end pairs).
 */
function verifyOrdered(buf: Uint8Array, a: Entry, b: Entry, candidates: number[]): number {
  const len1 = a.nameEnd - a.nameStart, len2 = b.nameEnd - b.nameStart;
  const len = Math.min(len1, len2);
  for (let k = 0; k < len; k++) {
    const d = buf[a.nameStart + k]! - buf[b.nameStart + k]!;
    if (d < 0) return TREE_ORDERED;
    if (d > 0) return TREE_UNORDERED;
  }
  let c1 = len < len1 ? buf[a.nameStart + len]! : 0;
  let c2 = len < len2 ? buf[b.nameStart + len]! : 0;
  if (!c1 && !c2) return TREE_HAS_DUPS;
  if (!c1 && (a.mode & S_IFMT) === S_IFDIR) c1 = SLASH;
  if (!c2 && (b.mode & S_IFMT) === S_IFDIR) c2 = SLASH;

  if (!c1 && isLessThanSlash(c2)) {
    candidates.push(a.nameStart, a.nameEnd);
  } else if (c2 === SLASH && isLessThanSlash(c1)) {
    while (candidates.length) {
      const fEnd = candidates.pop()!, fStart = candidates.pop()!;
      const fLen = fEnd - fStart;
      if (fLen > len2 || !sameBytes(buf, fStart, b.nameStart, fLen)) continue;
      if (fLen === len2) return TREE_HAS_DUPS;
      if (isLessThanSlash(buf[b.nameStart + fLen]!)) {
        candidates.push(fStart, fEnd);
        break;
      }
    }
  }
  return c1 < c2 ? TREE_ORDERED : TREE_UNORDERED;
}

function sameBytes(buf: Uint8Array, a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (buf[a + k] !== buf[b + k]) return false;
  return true;
}

function isNullOid(buf: Uint8Array, at: number): boolean {
  for (let k = 0; k < OID_BYTES; k++) if (buf[at + k] !== 0) return false;
  return true;
}

// git reports the symlink ids as it meets them and the rest after the walk, in this order.
const TREE_MESSAGES: readonly [FsckMsgId, string][] = [
  ['gitmodulesSymlink', '.gitmodules is a symbolic link'],
  ['gitattributesSymlink', '.gitattributes is a symlink'],
  ['gitignoreSymlink', '.gitignore is a symlink'],
  ['mailmapSymlink', '.mailmap is a symlink'],
  ['nullSha1', 'contains entries pointing to null sha1'],
  ['fullPathname', 'contains full pathnames'],
  ['hasDot', "contains '.'"],
  ['hasDotdot', "contains '..'"],
  ['hasDotgit', "contains '.git'"],
  ['zeroPaddedFilemode', 'contains zero-padded file modes'],
  ['badFilemode', 'contains bad file modes'],
  ['duplicateEntries', 'contains duplicate file entries'],
  ['treeNotSorted', 'not properly sorted'],
  ['largePathname', 'contains excessively large pathname'],
];

/**
 * A tree's entries as checkTree found them, for a caller that checks many versions of a directory
 * (index-pack --strict resolving a delta chain): where each entry starts, which ones were copied
 * whole from a base tree, and whether the tree was found clean, so that it may serve as a base.
 */
export class TreeLayout {
  /** Entry starts in order; starts[count] is where the last entry ends. */
  starts = new Int32Array(64);
  /** 1 for an entry that is byte for byte an entry of the base (its own checks were made there). */
  copied = new Uint8Array(64);
  count = 0;
  /** No problem of any level was found: every entry passed every check on its own. */
  clean = false;
}

/**
 * What a tree stored as a delta shares with its base: the base's layout (checked clean) and the
 * delta's copies as (result offset, length, base offset) triples in result order.
 */
export interface TreeDeltaBase {
  layout: TreeLayout;
  runs: Int32Array;
  runCount: number;
}

/**
 * Checks a tree object's content as git's fsck_tree does. Each id is reported once, naming the
 * first entry that tripped it. Names are judged by path-names.ts, which also applies the
 * backslash rule to `.gitattributes`, `.gitignore` and `.mailmap` symlinks (git only to `.git`
 * and `.gitmodules`).
 *
 * `onGitmodules` hears of every entry named `.gitmodules` (in any spelling a filesystem folds to
 * it) that is not a symlink, with the offset of its id in `content`: as in git, such a blob is
 * checked as a .gitmodules file once it is at hand.
 *
 * With `layout`, the entries are recorded there. With `base` too, an entry whose bytes one copy of
 * the delta took whole from one entry of that clean base (starting at the base entry's start and
 * ending at its end) skips the checks that look at an entry alone: those bytes passed them in the
 * base, and `onGitmodules` heard of them then. The order and duplicate checks, which look at
 * neighbours and at names met before, still see every entry.
 */
export function checkTree(content: Uint8Array, options: FsckOptions = {}, onGitmodules?: (idOffset: number) => void,
  layout?: TreeLayout, base?: TreeDeltaBase | null): FsckProblem[] {
  const report = new FsckReport(options);
  if (layout) {
    layout.count = 0;
    layout.starts[0] = 0;
    layout.clean = content.length === 0;
  }
  if (content.length === 0) return report.problems;
  // Made only once an entry is flagged: most trees have nothing to report.
  // (Typed by the cast so that TypeScript does not narrow it to null: the closure assigns it.)
  let found = null as Map<FsckMsgId, string> | null;
  const flag = (id: FsckMsgId, e: Entry): void => {
    found ??= new Map();
    if (!found.has(id)) found.set(id, `entry ${quote(content, e.nameStart, e.nameEnd)} at offset ${e.start}`);
  };
  // The three entries and the candidates list are the module's own, reused by every call (a
  // strict index-pack checks hundreds of thousands of trees, one at a time).
  const candidates = CANDIDATES;
  candidates.length = 0;
  let cur = ENTRIES[0]!, next = ENTRIES[1]!, spare = ENTRIES[2]!, prev: Entry | null = null;
  let parseError = decodeEntry(content, 0, cur);
  let count = 0, run = 0;
  // Only a clean base vouches for its entries.
  const runs = base?.layout.clean ? base.runs : undefined, runEnd = runs ? base!.runCount * 3 : 0;

  while (parseError === null) {
    let copied = false;
    if (runs) {
      while (run < runEnd && runs[run]! + runs[run + 1]! <= cur.start) run += 3;
      copied = run < runEnd && runs[run]! <= cur.start && cur.next <= runs[run]! + runs[run + 1]! &&
        isBaseEntry(base!.layout, runs[run + 2]! + (cur.start - runs[run]!), cur.next - cur.start);
    }
    if (layout) {
      if (count + 2 > layout.starts.length) growLayout(layout, count + 2);
      layout.starts[count] = cur.start;
      layout.copied[count] = copied ? 1 : 0;
      count++;
      layout.starts[count] = cur.next;
    }
    if (!copied) checkEntry(content, cur, flag, onGitmodules);
    // As in git, a broken next entry ends the walk before this entry's mode and order are checked.
    if (cur.next < content.length) {
      parseError = decodeEntry(content, cur.next, next);
      if (parseError !== null) break;
    }
    if (!copied) checkMode(cur, options, flag);
    if (prev) {
      const order = verifyOrdered(content, prev, cur, candidates);
      if (order === TREE_UNORDERED) flag('treeNotSorted', cur);
      else if (order === TREE_HAS_DUPS) flag('duplicateEntries', cur);
    }

    if (cur.next >= content.length) break;
    const done = prev ?? spare;
    prev = cur;
    cur = next;
    next = done;
  }

  if (parseError !== null) report.add('badTree', `cannot be parsed as a tree: ${parseError}`);
  if (found) {
    for (const [id, text] of TREE_MESSAGES) {
      const where = found.get(id);
      if (where !== undefined) report.add(id, `${text} (${where})`);
    }
  }
  if (layout) {
    layout.count = count;
    layout.clean = parseError === null && found === null;
  }
  return report.problems;
}

/** Whether base[at, at + length) is exactly one entry of the base's layout. */
function isBaseEntry(layout: TreeLayout, at: number, length: number): boolean {
  const starts = layout.starts;
  let lo = 0, hi = layout.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo < layout.count && starts[lo] === at && starts[lo + 1] === at + length;
}

function growLayout(layout: TreeLayout, need: number): void {
  const n = Math.max(need, layout.starts.length * 2);
  const starts = new Int32Array(n), copied = new Uint8Array(n);
  starts.set(layout.starts);
  copied.set(layout.copied);
  layout.starts = starts;
  layout.copied = copied;
}

/** The checks of fsck_tree that look at one entry's name and id alone. */
function checkEntry(content: Uint8Array, cur: Entry, flag: (id: FsckMsgId, e: Entry) => void,
  onGitmodules: ((idOffset: number) => void) | undefined): void {
  const { nameStart: s, nameEnd: e, mode } = cur;
  const isLink = (mode & S_IFMT) === S_IFLNK;
  if (isNullOid(content, e + 1)) flag('nullSha1', cur);
  if (indexOfIn(content, SLASH, s, e) >= 0) flag('fullPathname', cur);
  if (content[s] === DOT && e - s === 1) flag('hasDot', cur);
  if (content[s] === DOT && e - s === 2 && content[s + 1] === DOT) flag('hasDotdot', cur);
  if (content[cur.start] === ZERO) flag('zeroPaddedFilemode', cur);
  if (e - s > MAX_TREE_ENTRY_LEN) flag('largePathname', cur);
  // Most names cannot be any special name; the matchers are for the few that might.
  if (mayNameDotFile(content, s, e)) {
    if (isDotGit(content, s, e)) flag('hasDotgit', cur);
    if (isDotGitmodules(content, s, e)) {
      if (isLink) flag('gitmodulesSymlink', cur);
      else if (onGitmodules && (mode & S_IFMT) !== S_IFGITLINK) onGitmodules(e + 1);
    }
    if (isLink) {
      if (isDotGitattributes(content, s, e)) flag('gitattributesSymlink', cur);
      if (isDotGitignore(content, s, e)) flag('gitignoreSymlink', cur);
      if (isDotMailmap(content, s, e)) flag('mailmapSymlink', cur);
    }
  }
}

/** fsck_tree's check of one entry's mode. */
function checkMode(cur: Entry, options: FsckOptions, flag: (id: FsckMsgId, e: Entry) => void): void {
  switch (cur.mode) {
    case S_IFREG | 0o755: case S_IFREG | 0o644: case S_IFLNK: case S_IFDIR: case S_IFGITLINK:
      break;
    case S_IFREG | 0o664: // written by very old gits; only --strict objects to it
      if (options.strict) flag('badFilemode', cur);
      break;
    default:
      flag('badFilemode', cur);
  }
}

// ---- commits and tags ----------------------------------------------------------------------------

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const TREE = ascii('tree '), PARENT = ascii('parent '), AUTHOR = ascii('author '),
  COMMITTER = ascii('committer '), OBJECT = ascii('object '), TYPE = ascii('type '),
  TAG = ascii('tag '), TAGGER = ascii('tagger '), LOCK = ascii('.lock');
const OBJECT_TYPES = new Set(['commit', 'tree', 'blob', 'tag']);

function startsWith(buf: Uint8Array, pos: number, prefix: Uint8Array): boolean {
  if (pos + prefix.length > buf.length) return false;
  for (let k = 0; k < prefix.length; k++) if (buf[pos + k] !== prefix[k]) return false;
  return true;
}

/** Where the line holding `pos` ends, past its LF (or the end of the buffer). */
function lineAfter(buf: Uint8Array, pos: number): number {
  const lf = buf.indexOf(LF, pos);
  return lf < 0 ? buf.length : lf + 1;
}

const isHex = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** 40 hex digits (either case, as git's get_oid_hex takes them) then LF. */
function isOidLine(buf: Uint8Array, pos: number): boolean {
  if (pos + 40 >= buf.length) return false;
  for (let k = 0; k < 40; k++) if (!isHex(buf[pos + k]!)) return false;
  return buf[pos + 40] === LF;
}

/**
 * git's verify_headers: the header must end in LF (a blank line or the last byte) and contain no
 * NUL, which is what lets the line parsers below run without bounds surprises.
 */
function verifyHeaders(buf: Uint8Array, report: FsckReport): boolean {
  const len = buf.length;
  let blank = buf.indexOf(LF);
  while (blank >= 0 && blank + 1 < len && buf[blank + 1] !== LF) blank = buf.indexOf(LF, blank + 1);
  if (blank + 1 >= len) blank = -1;
  const nul = buf.indexOf(0);
  if (nul >= 0 && (blank < 0 || nul < blank)) {
    report.add('nulInHeader', `unterminated header: NUL at offset ${nul}`);
    return false;
  }
  if (blank >= 0 || (len && buf[len - 1] === LF)) return true;
  report.add('unterminatedHeader', 'unterminated header');
  return false;
}

const DATE_OVERFLOW = 1n << 63n;

/** Bytes past the end read as NUL, as in git's NUL-terminated object buffers. */
const byteAt = (buf: Uint8Array, k: number): number => (k < buf.length ? buf[k]! : 0);
const isDigit = (c: number): boolean => c >= ZERO && c <= ZERO + 9;

/** strcspn(p, "<>\n") on a NUL-terminated buffer. */
function skipToAngle(buf: Uint8Array, k: number): number {
  for (;; k++) {
    const c = byteAt(buf, k);
    if (c === 0 || c === 0x3c || c === 0x3e || c === LF) return k;
  }
}

/** Which rule the identity at `pos` ("Name <email> 1700000000 +0000\n") breaks first, per git's fsck_ident. */
function identProblem(buf: Uint8Array, pos: number): [FsckMsgId, string] | null {
  let p = pos;
  if (byteAt(buf, p) === 0x3c) return ['missingNameBeforeEmail', 'missing space before email'];
  p = skipToAngle(buf, p);
  if (byteAt(buf, p) === 0x3e) return ['badName', 'bad name'];
  if (byteAt(buf, p) !== 0x3c) return ['missingEmail', 'missing email'];
  if (byteAt(buf, p - 1) !== SPACE) return ['missingSpaceBeforeEmail', 'missing space before email'];
  p = skipToAngle(buf, p + 1);
  if (byteAt(buf, p) !== 0x3e) return ['badEmail', 'bad email'];
  p++;
  if (byteAt(buf, p) !== SPACE) return ['missingSpaceBeforeDate', 'missing space before date'];
  p++;
  // git tolerates extra spaces and tabs before the date, though never a line break.
  while (byteAt(buf, p) === SPACE || byteAt(buf, p) === TAB) p++;
  if (!isDigit(byteAt(buf, p))) return ['badDate', 'bad date'];
  if (byteAt(buf, p) === ZERO && byteAt(buf, p + 1) !== SPACE) return ['zeroPaddedDate', 'zero-padded date'];
  let q = p;
  while (isDigit(byteAt(buf, q))) q++;
  // Dates are unsigned 64-bit in git and must also fit a signed time_t: below 2^63 (19 digits).
  if (q - p >= 19 && BigInt(Buffer.from(buf.buffer, buf.byteOffset + p, q - p).toString('latin1')) >= DATE_OVERFLOW) {
    return ['badDateOverflow', 'date causes integer overflow'];
  }
  if (byteAt(buf, q) !== SPACE) return ['badDate', 'bad date'];
  p = q + 1;
  const sign = byteAt(buf, p);
  if ((sign !== 0x2b && sign !== 0x2d) || !isDigit(byteAt(buf, p + 1)) || !isDigit(byteAt(buf, p + 2)) ||
    !isDigit(byteAt(buf, p + 3)) || !isDigit(byteAt(buf, p + 4)) || byteAt(buf, p + 5) !== LF) {
    return ['badTimezone', 'bad time zone'];
  }
  return null;
}

/** Reports what is wrong with the `line` identity at `pos`; true if that is an error. */
function checkIdent(buf: Uint8Array, pos: number, line: string, report: FsckReport): boolean {
  const problem = identProblem(buf, pos);
  if (problem === null) return false;
  const lineStart = pos - line.length - 1;
  return report.add(problem[0], `invalid author/committer line - ${problem[1]} ('${line}' line at offset ${lineStart})`);
}

/** Checks a commit object's content as git's fsck_commit does. */
export function checkCommit(content: Uint8Array, options: FsckOptions = {}): FsckProblem[] {
  const report = new FsckReport(options);
  const problems = report.problems;
  if (!verifyHeaders(content, report)) return problems;
  const end = content.length;
  let pos = 0;
  if (!startsWith(content, pos, TREE)) {
    report.add('missingTree', "invalid format - expected 'tree' line");
    return problems;
  }
  pos += TREE.length;
  if (!isOidLine(content, pos) && report.add('badTreeSha1', `invalid 'tree' line format - bad sha1 at offset ${pos}`)) {
    return problems;
  }
  pos = lineAfter(content, pos);
  while (pos < end && startsWith(content, pos, PARENT)) {
    pos += PARENT.length;
    if (!isOidLine(content, pos) && report.add('badParentSha1', `invalid 'parent' line format - bad sha1 at offset ${pos}`)) {
      return problems;
    }
    pos = lineAfter(content, pos);
  }
  let authors = 0;
  while (pos < end && startsWith(content, pos, AUTHOR)) {
    authors++;
    pos += AUTHOR.length;
    if (checkIdent(content, pos, 'author', report)) return problems;
    pos = lineAfter(content, pos);
  }
  if (authors === 0 && report.add('missingAuthor', "invalid format - expected 'author' line")) return problems;
  if (authors > 1 && report.add('multipleAuthors', "invalid format - multiple 'author' lines")) return problems;
  if (!startsWith(content, pos, COMMITTER)) {
    report.add('missingCommitter', "invalid format - expected 'committer' line");
    return problems;
  }
  if (checkIdent(content, pos + COMMITTER.length, 'committer', report)) return problems;
  const nul = content.indexOf(0);
  if (nul >= 0) report.add('nulInCommit', `NUL byte in the commit object body at offset ${nul}`);
  return problems;
}

/**
 * git's check_refname_format(name, 0) for `refs/tags/<tag>`: no empty components, none starting
 * with '.' or ending in '.lock', no `..` or `@{`, no control characters, space, `~^:?*[\`, and
 * no trailing '.'.
 */
function isValidTagRefName(buf: Uint8Array, start: number, end: number): boolean {
  if (buf[end - 1] === DOT) return false;
  let componentStart = start, last = 0;
  for (let i = start; i <= end; i++) {
    const c = i < end ? buf[i]! : SLASH;
    if (c === SLASH) {
      const len = i - componentStart;
      if (len === 0 || buf[componentStart] === DOT) return false;
      if (len >= LOCK.length && startsWith(buf, i - LOCK.length, LOCK)) return false;
      componentStart = i + 1;
      last = 0;
      continue;
    }
    if (c < 0x20 || c === 0x7f || c === SPACE || c === 0x3a || c === 0x3f || c === 0x5b ||
      c === 0x5c || c === 0x5e || c === 0x7e || c === 0x2a) return false;
    if (c === DOT && last === DOT) return false;
    if (c === 0x7b && last === 0x40) return false;
    last = c;
  }
  return true;
}

/** Checks a tag object's content as git's fsck_tag does. */
export function checkTag(content: Uint8Array, options: FsckOptions = {}): FsckProblem[] {
  const report = new FsckReport(options);
  const problems = report.problems;
  if (!verifyHeaders(content, report)) return problems;
  const end = content.length;
  let pos = 0;
  if (!startsWith(content, pos, OBJECT)) {
    report.add('missingObject', "invalid format - expected 'object' line");
    return problems;
  }
  pos += OBJECT.length;
  if (!isOidLine(content, pos) && report.add('badObjectSha1', `invalid 'object' line format - bad sha1 at offset ${pos}`)) {
    return problems;
  }
  pos = lineAfter(content, pos);

  if (!startsWith(content, pos, TYPE)) {
    report.add('missingTypeEntry', "invalid format - expected 'type' line");
    return problems;
  }
  pos += TYPE.length;
  let eol = content.indexOf(LF, pos);
  if (eol < 0) {
    report.add('missingType', "invalid format - unexpected end after 'type' line");
    return problems;
  }
  const type = Buffer.from(content.buffer, content.byteOffset + pos, eol - pos).toString('latin1');
  if (!OBJECT_TYPES.has(type) && report.add('badType', `invalid 'type' value ${JSON.stringify(type)}`)) {
    return problems;
  }
  pos = eol + 1;

  if (!startsWith(content, pos, TAG)) {
    report.add('missingTagEntry', "invalid format - expected 'tag' line");
    return problems;
  }
  pos += TAG.length;
  eol = content.indexOf(LF, pos);
  if (eol < 0) {
    report.add('missingTag', "invalid format - unexpected end after 'type' line");
    return problems;
  }
  if (!isValidTagRefName(content, pos, eol) &&
    report.add('badTagName', `invalid 'tag' name: ${quote(content, pos, eol)}`)) {
    return problems;
  }
  pos = eol + 1;

  if (!startsWith(content, pos, TAGGER)) {
    // Tags made before 2005-07 have no tagger.
    if (report.add('missingTaggerEntry', "invalid format - expected 'tagger' line")) return problems;
  } else {
    checkIdent(content, pos + TAGGER.length, 'tagger', report);
    pos = lineAfter(content, pos);
  }
  if (pos < end && content[pos] !== LF) {
    report.add('extraHeaderEntry', `invalid format - extra header(s) after 'tagger' at offset ${pos}`);
  }
  return problems;
}

/** Checks any object; blobs have nothing to check on their own (their role comes from trees). */
export function checkObject(type: ObjectType, content: Uint8Array, options: FsckOptions = {},
  onGitmodules?: (idOffset: number) => void): FsckProblem[] {
  switch (type) {
    case 'tree': return checkTree(content, options, onGitmodules);
    case 'commit': return checkCommit(content, options);
    case 'tag': return checkTag(content, options);
    case 'blob': return [];
  }
}

/**
 * Throws a CorruptError naming `name` (an id or a path) and every error-severity problem;
 * warnings pass, as they do for git.
 */
export function assertValidObject(type: ObjectType, content: Uint8Array, name: string, options: FsckOptions = {}): void {
  const errors = checkObject(type, content, options).filter((p) => p.severity === 'error');
  if (errors.length === 0) return;
  throw new CorruptError('object', `${type} ${name}: ${errors.map((p) => `${p.id}: ${p.message}`).join('; ')}`);
}
