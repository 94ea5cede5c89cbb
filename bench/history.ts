// A simulated project history, written as a `git fast-import` stream in chunks so that a corpus of
// any size streams through a pipe without being held in memory.
//
// The shape follows real projects: a main line, short topic branches that fork from main and come
// back as --no-ff merges, a long-lived maint branch whose fixes are merged up, release tags
// (annotated) and build tags (lightweight). Files live in nested directories; a few are edited
// again and again (hot files give long delta chains), most rarely. Every change is a few hunks of
// lines cut from the text pool, so successive versions of a file deltify like real source.
//
// Merges are real three-way merges at the line level: a file changed only on the merged branch is
// taken as is; a file changed on both sides gets the branch's edits replayed on the target's
// version, so the merge result contains both sides' work, as git's would.
import { Random } from './random.js';
import { type Edit, type Runs, applyEdit, byteLength, lineCount, materialize, slice } from './file-content.js';
import type { TextPool } from './text-pool.js';

export interface HistorySpec {
  seed: number;
  /** Total commits, merges and the root commit included. */
  commits: number;
  /** Files in the root commit. */
  initialFiles: number;
  /** Directories to spread files over; file paths have 2 to 6 components. */
  dirs: number;
  /**
   * Files of the root commit go in directories at most this deep. They are the ones edited most
   * (see hotSkew), and a project's busiest files sit near its root: this keeps the trees rewritten
   * per commit, and so the object count, close to real projects'.
   */
  initialDirDepth: number;
  /** Line counts of new files: most are small, bigFilePerMille of them big. */
  smallFileLines: [number, number];
  bigFileLines: [number, number];
  bigFilePerMille: number;
  /** Files changed by an ordinary commit. */
  touches: [number, number];
  /** Hunks per edited file, and lines deleted and inserted per hunk. */
  hunks: [number, number];
  hunkLines: [number, number];
  /** How strongly edits favour the oldest files (1 = uniform; n = minimum of n draws). */
  hotSkew: number;
  /** Per change: chance that it adds, deletes or renames a file instead of editing one. */
  addPerMille: number;
  deletePerMille: number;
  renamePerMille: number;
  /** Chance that a new file is executable, or a symbolic link. */
  executablePerMille: number;
  symlinkPerMille: number;
  /** Per main commit: chance to start a topic branch; topics live on a fixed set of branch names. */
  topicPerMille: number;
  topicCommits: [number, number];
  topicSlots: number;
  /** Per step: chance that the commit goes to maint; maint is merged into main every n commits. */
  maintPerMille: number;
  maintMergeEvery: number;
  /** Per main commit: chance of a tag, and the share of those that are annotated. */
  tagPerMille: number;
  annotatedPerMille: number;
  /**
   * Flat, wide directories that commits touch each with their own chance, as a real project's
   * tests and documentation (git.git's t/ with ~1,500 files and Documentation/ with ~700): every
   * touch rewrites a tree of that many entries. '' is the root directory.
   */
  flatDirs?: readonly FlatDir[];
  /**
   * Paragraphs in an ordinary commit's message body, and lines in each: real projects' messages
   * explain the change in several hundred bytes. Without it, 70% of messages get one paragraph.
   */
  messageBody?: { paragraphs: [number, number]; lines: [number, number] };
}

export interface FlatDir {
  /**
   * The directory ('' for the root); its files are named `<prefix><word>-<word><suffix>`, a '#' in
   * the prefix standing for four digits (git.git's t1234-name.sh).
   */
  name: string;
  prefix: string;
  suffix: string;
  initialFiles: number;
  /** Per ordinary commit: chance that it changes a file here, and that the change adds one. */
  touchPerMille: number;
  addPerMille: number;
}

export interface HistoryStats {
  commits: number;
  merges: number;
  blobVersions: number;
  blobBytes: number;
  annotatedTags: number;
  lightweightTags: number;
  filesAtHead: number;
}

interface FileState {
  runs: Runs;
  mode: number;
  /** Symbolic links hold a target path instead of runs. */
  link: string | null;
  /** Edits keep the file below this many lines. */
  cap: number;
}

interface Change {
  base: FileState | null;
  edits: Edit[];
}

interface Branch {
  ref: string;
  name: string;
  files: Map<string, FileState>;
  paths: string[];
  /** Mark of the tip commit; 0 before the first commit. */
  tip: number;
  /** fast-import's branch does not point at `tip` yet (new branch, or a reused topic name). */
  needsFrom: boolean;
  /** What this branch changed since it forked or was last merged: the merge's input (null on main). */
  changed: Map<string, Change> | null;
  subjects: string[];
  remaining: number;
  /** The paths of each flat directory (HistorySpec.flatDirs), in the order they were added. */
  flat: string[][];
}

const REGULAR = 0o100644;
const EXECUTABLE = 0o100755;
const SYMLINK = 0o120000;
const CHUNK = 1 << 20;
const START_TIME = 1262304000; // 2010-01-01T00:00:00Z

const PEOPLE: readonly (readonly [string, string])[] = [
  ['Alice Example', '+0000'], ['Bob Sample', '-0800'], ['Carol Tester', '+0100'],
  ['Dan Placeholder', '+0530'], ['Erin Fixture', '-0500'], ['Frank Mock', '+0900'],
  ['Grace Stub', '+0200'], ['Heidi Dummy', '-0300'], ['Ivan Specimen', '+0300'],
  ['Judy Prototype', '+1000'], ['Mallory Draft', '-0700'], ['Niaj Example', '+0800'],
  ['Olivia Sample', '+0000'], ['Peggy Tester', '-0400'], ['Rupert Mock', '+0100'],
  ['Sybil Stub', '+1200'],
];
const MAINTAINER = 0;
const ROOT_FILES = ['README.md', 'Makefile', '.gitignore'];

const WORDS = [
  'src', 'lib', 'core', 'util', 'net', 'io', 'pack', 'store', 'walk', 'index', 'proto', 'server',
  'client', 'tree', 'diff', 'merge', 'refs', 'config', 'cache', 'hash', 'zlib', 'delta', 'graph',
  'cli', 'api', 'test', 'fixtures', 'docs', 'tools', 'build', 'scripts', 'vendor', 'internal',
  'parser', 'lexer', 'emit', 'check', 'types', 'compat', 'platform', 'worker', 'queue', 'stream',
  'buffer', 'events', 'http', 'auth', 'session', 'render', 'layout', 'style', 'model', 'view',
  'schema', 'query', 'plan', 'exec', 'log', 'trace', 'metrics', 'alloc', 'sync', 'time', 'path',
];
const EXTENSIONS = ['ts', 'ts', 'ts', 'ts', 'js', 'js', 'd.ts', 'md', 'mjs'];
const TOPIC_NAMES = [
  'topic/parser-rewrite', 'topic/faster-walk', 'topic/pack-reuse', 'topic/docs-cleanup',
  'topic/config-layers', 'topic/http-retry', 'topic/index-v4', 'topic/refs-table',
  'topic/worker-pool', 'topic/sparse-trees', 'topic/diff-heuristics', 'topic/lint-fixes',
];

/** Accumulates stream bytes; the generator yields them in chunks of about a megabyte. */
class Out {
  private parts: Buffer[] = [];
  size = 0;

  text(s: string): void {
    this.bytes(Buffer.from(s, 'utf8'));
  }

  bytes(b: Buffer): void {
    this.parts.push(b);
    this.size += b.length;
  }

  data(b: Buffer): void {
    this.text(`data ${b.length}\n`);
    this.bytes(b);
    this.text('\n');
  }

  take(): Buffer {
    const b = Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    return b;
  }
}

export class History {
  readonly stats: HistoryStats = {
    commits: 0, merges: 0, blobVersions: 0, blobBytes: 0, annotatedTags: 0, lightweightTags: 0, filesAtHead: 0,
  };
  private readonly rand: Random;
  private readonly out = new Out();
  private readonly usedPaths = new Set<string>();
  private readonly dirs: string[] = [];
  private readonly shallowDirs: string[] = [];
  private nextMark = 1;
  private time = START_TIME;
  private readonly main: Branch;
  private maint: Branch | null = null;
  private readonly topics: (Branch | null)[];
  private release = { major: 1, minor: 0, patch: 0 };
  private buildTags = 0;

  constructor(private readonly spec: HistorySpec, private readonly pool: TextPool) {
    this.rand = new Random(spec.seed);
    this.main = newBranch('refs/heads/main', 'main', false, spec.flatDirs?.length ?? 0);
    this.topics = new Array<Branch | null>(Math.min(spec.topicSlots, TOPIC_NAMES.length)).fill(null);
    this.makeDirs();
  }

  /** The whole stream, ending with `done` (run fast-import with --done so truncation is caught). */
  *stream(): Generator<Buffer> {
    yield* this.rootCommit();
    while (this.stats.commits < this.spec.commits) {
      this.step();
      if (this.out.size >= CHUNK) yield this.out.take();
    }
    this.stats.filesAtHead = this.main.paths.length;
    this.out.text('done\n');
    yield this.out.take();
  }

  // --- layout --------------------------------------------------------------------------------

  private makeDirs(): void {
    const { rand } = this;
    const depth: number[] = [];
    const seen = new Set<string>();
    // Real projects have a handful to a few dozen top-level directories, whatever their size.
    const top = Math.min(24, Math.max(4, Math.floor(this.spec.dirs / 40)));
    for (let i = 0; i < this.spec.dirs; i++) {
      let parent = -1;
      if (i >= top) {
        // Parents are drawn from directories at most 4 deep, so files (one level below) have at most 6 components.
        do parent = rand.int(i); while (depth[parent]! >= 5);
      }
      const prefix = parent < 0 ? '' : `${this.dirs[parent]}/`;
      let name = `${prefix}${rand.pick(WORDS)}`;
      for (let k = 2; seen.has(name); k++) name = `${prefix}${rand.pick(WORDS)}${k}`;
      seen.add(name);
      this.dirs.push(name);
      depth.push(parent < 0 ? 1 : depth[parent]! + 1);
      if (depth[i]! <= this.spec.initialDirDepth) this.shallowDirs.push(name);
    }
  }

  private newPath(shallow = false): string {
    const dir = this.rand.pick(shallow ? this.shallowDirs : this.dirs);
    let p = `${dir}/${this.rand.pick(WORDS)}-${this.rand.pick(WORDS)}.${this.rand.pick(EXTENSIONS)}`;
    for (let k = 2; this.usedPaths.has(p); k++) p = p.replace(/(-\d+)?(\.[a-z.]+)$/, `-${k}$2`);
    this.usedPaths.add(p);
    return p;
  }

  private newFlatPath(dir: FlatDir): string {
    const { rand } = this;
    const prefix = dir.prefix.replace('#', () => String(rand.range(1000, 9999)));
    const base = `${dir.name ? `${dir.name}/` : ''}${prefix}`;
    let p = `${base}${rand.pick(WORDS)}-${rand.pick(WORDS)}${dir.suffix}`;
    for (let k = 2; this.usedPaths.has(p); k++) p = `${base}${rand.pick(WORDS)}-${rand.pick(WORDS)}-${k}${dir.suffix}`;
    this.usedPaths.add(p);
    return p;
  }

  /** Which of spec.flatDirs holds path `p` directly, or -1. */
  private flatDirOf(p: string): number {
    const dirs = this.spec.flatDirs;
    if (dirs === undefined) return -1;
    const slash = p.lastIndexOf('/');
    const dir = slash < 0 ? '' : p.slice(0, slash);
    for (let d = 0; d < dirs.length; d++) if (dirs[d]!.name === dir) return d;
    return -1;
  }

  private newFile(b: Branch, p: string): FileState {
    const { rand, spec, pool } = this;
    if (b.paths.length > 0 && rand.chance(spec.symlinkPerMille)) {
      return { runs: new Int32Array(0), mode: SYMLINK, link: this.linkTarget(b, p), cap: 0 };
    }
    const big = rand.chance(spec.bigFilePerMille);
    const [lo, hi] = big ? spec.bigFileLines : spec.smallFileLines;
    const lines = Math.min(rand.range(lo, hi), pool.lines);
    return {
      runs: slice(rand.int(pool.lines - lines + 1), lines),
      mode: rand.chance(spec.executablePerMille) ? EXECUTABLE : REGULAR,
      link: null,
      cap: hi + (hi >> 1),
    };
  }

  /** Another file of the branch, relative to the link's directory, as links in real trees are. */
  private linkTarget(b: Branch, p: string): string {
    return '../'.repeat(p.split('/').length - 1) + this.rand.pick(b.paths);
  }

  // --- history ---------------------------------------------------------------------------------

  private *rootCommit(): Generator<Buffer> {
    const { out, main } = this;
    // A tag on a blob that no tree holds, as git.git's junio-gpg-pub: rev-list --objects --all must find it.
    const keyMark = this.nextMark++;
    out.text(`blob\nmark :${keyMark}\n`);
    out.data(materialize(this.pool, slice(this.rand.int(this.pool.lines - 40), 40)));
    this.commitHeader(main, ['Initial import', '', 'Start of the project history.'], MAINTAINER, 0);
    for (let i = 0; i < this.spec.initialFiles; i++) {
      const p = i < ROOT_FILES.length ? ROOT_FILES[i]! : this.newPath(true);
      const f = this.newFile(main, p);
      this.set(main, p, f, null);
      this.emitFile(p, f);
      if (out.size >= CHUNK) yield out.take();
    }
    const flatDirs = this.spec.flatDirs ?? [];
    for (let d = 0; d < flatDirs.length; d++) {
      for (let i = 0; i < flatDirs[d]!.initialFiles; i++) {
        const p = this.newFlatPath(flatDirs[d]!);
        const f = this.newFile(main, p);
        this.set(main, p, f, null);
        this.emitFile(p, f);
        if (out.size >= CHUNK) yield out.take();
      }
    }
    out.text('\n');
    out.text(`tag project-key\nfrom :${keyMark}\ntagger ${this.identAt(MAINTAINER)}\n`);
    out.data(Buffer.from('The project signing key, as a blob outside any tree.\n'));
    this.stats.annotatedTags++;
    yield out.take();
  }

  private step(): void {
    const { rand, spec, main } = this;
    const active = this.topics.filter((t): t is Branch => t !== null);
    const r = rand.int(1000);
    if (active.length > 0 && r < 350) {
      const topic = rand.pick(active);
      this.ordinaryCommit(topic);
      if (--topic.remaining === 0 && this.stats.commits < spec.commits) {
        this.merge(topic, main, topic.name);
        this.topics[this.topics.indexOf(topic)] = null;
      }
      return;
    }
    if (this.maint !== null && r < 350 + spec.maintPerMille) {
      const maint = this.maint;
      this.ordinaryCommit(maint);
      if (maint.subjects.length >= spec.maintMergeEvery && this.stats.commits < spec.commits) {
        this.release.patch++;
        const { major, minor, patch } = this.release;
        this.annotatedTag(`v${major}.${minor}.${patch}`, maint.tip, `Maintenance release ${major}.${minor}.${patch}`);
        this.merge(maint, main, 'maint');
      }
      return;
    }
    this.ordinaryCommit(main);
    if (rand.chance(spec.tagPerMille)) this.tagMain();
    const free = this.topics.indexOf(null);
    if (free >= 0 && rand.chance(spec.topicPerMille)) {
      this.topics[free] = this.fork(TOPIC_NAMES[free]!, rand.range(spec.topicCommits[0], spec.topicCommits[1]));
    }
  }

  private fork(name: string, commits: number): Branch {
    const b = newBranch(`refs/heads/${name}`, name, true, 0);
    b.files = new Map(this.main.files);
    b.paths = this.main.paths.slice();
    b.flat = this.main.flat.map(f => f.slice());
    b.tip = this.main.tip;
    b.remaining = commits;
    return b;
  }

  private tagMain(): void {
    const { main, rand, spec } = this;
    if (rand.chance(spec.annotatedPerMille)) {
      const r = this.release;
      r.minor++;
      if (r.minor === 20) { r.major++; r.minor = 0; }
      r.patch = 0;
      this.annotatedTag(`v${r.major}.${r.minor}.0`, main.tip, `Release ${r.major}.${r.minor}.0`);
      if (this.maint === null && spec.maintPerMille > 0) this.maint = this.fork('maint', 0);
    } else {
      this.buildTags++;
      this.out.text(`reset refs/tags/build-${this.buildTags}\nfrom :${main.tip}\n\n`);
      this.stats.lightweightTags++;
    }
  }

  private annotatedTag(name: string, mark: number, title: string): void {
    const body = [title, '', ...this.paragraph(3, 8)].join('\n') + '\n';
    this.out.text(`tag ${name}\nfrom :${mark}\ntagger ${this.identAt(MAINTAINER)}\n`);
    this.out.data(Buffer.from(body, 'utf8'));
    this.stats.annotatedTags++;
  }

  private ordinaryCommit(b: Branch): void {
    const { rand, spec } = this;
    const changes = new Map<string, FileState | null>();
    const n = rand.range(spec.touches[0], spec.touches[1]);
    // Picks that hit a file already deleted or renamed in this commit are retried.
    for (let tries = 0; changes.size < n && tries < 4 * n; tries++) {
      const r = rand.int(1000);
      if (r < spec.addPerMille || b.paths.length < 8) {
        const p = this.newPath();
        this.set(b, p, this.newFile(b, p), changes);
      } else if (r < spec.addPerMille + spec.deletePerMille) {
        const p = rand.pick(b.paths);
        if (!changes.has(p)) this.set(b, p, null, changes);
      } else if (r < spec.addPerMille + spec.deletePerMille + spec.renamePerMille) {
        const p = rand.pick(b.paths);
        if (changes.has(p)) continue;
        const f = b.files.get(p)!;
        this.set(b, p, null, changes);
        this.set(b, this.newPath(), f, changes);
      } else {
        const p = b.paths[rand.skewed(b.paths.length, spec.hotSkew)]!;
        this.set(b, p, this.edit(b, p, b.files.get(p)!), changes);
      }
    }
    const flatDirs = spec.flatDirs ?? [];
    for (let d = 0; d < flatDirs.length; d++) {
      const dir = flatDirs[d]!, files = b.flat[d]!;
      if (!rand.chance(dir.touchPerMille)) continue;
      if (files.length === 0 || rand.chance(dir.addPerMille)) {
        const p = this.newFlatPath(dir);
        this.set(b, p, this.newFile(b, p), changes);
      } else {
        const p = files[rand.skewed(files.length, spec.hotSkew)]!;
        this.set(b, p, this.edit(b, p, b.files.get(p)!), changes);
      }
    }
    const first = changes.keys().next().value ?? 'misc';
    const subject = `${first.split('/')[0]}: ${this.sentence(60)}`;
    if (b.changed !== null) b.subjects.push(subject);
    const message = [subject];
    const body = spec.messageBody;
    if (body !== undefined) {
      for (let k = rand.range(body.paragraphs[0], body.paragraphs[1]); k > 0; k--) message.push('', ...this.paragraph(body.lines[0], body.lines[1]));
    } else if (rand.chance(700)) {
      message.push('', ...this.paragraph(2, 14));
    }
    const author = rand.int(PEOPLE.length);
    message.push('', `Signed-off-by: ${this.person(author)}`);
    this.commitHeader(b, message, author, 0);
    this.emitChanges(changes);
  }

  /** A few hunks of pool lines on a regular file; a link is pointed elsewhere; rarely a chmod. */
  private edit(b: Branch, p: string, f: FileState): FileState {
    const { rand, spec, pool } = this;
    const change = this.changeOf(b, p);
    if (f.link !== null) return { ...f, link: this.linkTarget(b, p) };
    if (rand.chance(3)) return { ...f, mode: f.mode === REGULAR ? EXECUTABLE : REGULAR };
    let runs = f.runs;
    const hunks = rand.range(spec.hunks[0], spec.hunks[1]);
    for (let h = 0; h < hunks; h++) {
      const lines = lineCount(runs);
      let del = rand.range(spec.hunkLines[0], spec.hunkLines[1]);
      let count = rand.range(spec.hunkLines[0], spec.hunkLines[1]);
      if (lines + count > f.cap) count >>= 2;
      if (lines < 20) del = 0;
      const e: Edit = { at: rand.int(lines + 1), del, start: 0, count };
      e.start = rand.int(pool.lines - count + 1);
      runs = applyEdit(runs, e);
      change?.edits.push(e);
    }
    return { ...f, runs };
  }

  private changeOf(b: Branch, p: string): Change | null {
    if (b.changed === null) return null;
    let c = b.changed.get(p);
    if (c === undefined) {
      c = { base: b.files.get(p) ?? null, edits: [] };
      b.changed.set(p, c);
    }
    return c;
  }

  private set(b: Branch, p: string, f: FileState | null, changes: Map<string, FileState | null> | null): void {
    this.changeOf(b, p);
    const had = b.files.has(p);
    const flat = had === (f === null) ? this.flatDirOf(p) : -1;
    if (f === null) {
      b.files.delete(p);
      if (had) b.paths.splice(b.paths.indexOf(p), 1);
      if (flat >= 0) b.flat[flat]!.splice(b.flat[flat]!.indexOf(p), 1);
    } else {
      b.files.set(p, f);
      if (!had) b.paths.push(p);
      if (flat >= 0) b.flat[flat]!.push(p);
    }
    changes?.set(p, f);
  }

  /** A --no-ff merge of `src` into `dst` (see the file comment for how both sides combine). */
  private merge(src: Branch, dst: Branch, name: string): void {
    const changes = new Map<string, FileState | null>();
    for (const [p, { base, edits }] of src.changed!) {
      const ours = dst.files.get(p) ?? null;
      const theirs = src.files.get(p) ?? null;
      let result: FileState | null;
      if (ours === base) result = theirs; // only src changed it
      else if (theirs === null || ours === null) result = null; // deleted on either side: stays deleted
      else if (theirs.link !== null || ours.link !== null || edits.length === 0) result = theirs;
      else result = { ...theirs, runs: edits.reduce(applyEdit, ours.runs) };
      if (result !== ours) this.set(dst, p, result, changes);
    }
    const message = [`Merge branch '${name}'`, '', `* ${name}:`, ...src.subjects.map((s) => `  ${s}`)];
    this.commitHeader(dst, message, MAINTAINER, src.tip);
    this.emitChanges(changes);
    src.changed!.clear();
    src.subjects = [];
    this.stats.merges++;
  }

  // --- stream ------------------------------------------------------------------------------------

  private commitHeader(b: Branch, message: string[], author: number, mergeMark: number): void {
    const { out } = this;
    this.time += this.rand.range(300, 10800);
    const mark = this.nextMark++;
    out.text(`commit ${b.ref}\nmark :${mark}\n`);
    out.text(`author ${this.identAt(author)}\ncommitter ${this.identAt(mergeMark ? MAINTAINER : author)}\n`);
    out.data(Buffer.from(message.join('\n') + '\n', 'utf8'));
    if (b.needsFrom && b.tip !== 0) out.text(`from :${b.tip}\n`);
    if (mergeMark) out.text(`merge :${mergeMark}\n`);
    b.needsFrom = false;
    b.tip = mark;
    this.stats.commits++;
  }

  private emitChanges(changes: Map<string, FileState | null>): void {
    for (const [p, f] of changes) {
      if (f === null) this.out.text(`D ${p}\n`);
      else this.emitFile(p, f);
    }
    this.out.text('\n');
  }

  private emitFile(p: string, f: FileState): void {
    const { out } = this;
    out.text(`M ${f.mode.toString(8)} inline ${p}\n`);
    const content = f.link !== null ? Buffer.from(f.link, 'utf8') : materialize(this.pool, f.runs);
    out.data(content);
    this.stats.blobVersions++;
    this.stats.blobBytes += f.link !== null ? content.length : byteLength(this.pool, f.runs);
  }

  private person(i: number): string {
    const name = PEOPLE[i]![0];
    return `${name} <${name.toLowerCase().replace(' ', '.')}@example.org>`;
  }

  private identAt(i: number): string {
    return `${this.person(i)} ${this.time} ${PEOPLE[i]![1]}`;
  }

  /** One pool line, whitespace collapsed, cut to `max` characters; never empty. */
  private sentence(max: number): string {
    const { pool, rand } = this;
    let i = rand.int(pool.lines);
    for (let tries = 0; tries < 50; tries++, i = (i + 1) % pool.lines) {
      const s = pool.bytes.toString('utf8', pool.lineStart[i]!, pool.lineStart[i + 1]! - 1).replace(/\s+/g, ' ').trim();
      if (s.length >= 12) return s.slice(0, max);
    }
    return 'update';
  }

  private paragraph(min: number, max: number): string[] {
    const n = this.rand.range(min, max);
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(this.sentence(72));
    return lines;
  }
}

function newBranch(ref: string, name: string, tracksChanges: boolean, flatDirs: number): Branch {
  return {
    ref, name, files: new Map(), paths: [], tip: 0, needsFrom: true,
    changed: tracksChanges ? new Map() : null, subjects: [], remaining: 0,
    flat: Array.from({ length: flatDirs }, () => []),
  };
}
