// tsgit sparse-checkout (init | list | set | add | reapply | disable): git 2.39's command. The mode
// goes to this work tree's config.worktree (extensions.worktreeConfig turned on first), the
// patterns to $GIT_DIR/info/sparse-checkout, byte for byte as git writes them, and the work tree
// and index follow (worktree/sparse/update.ts). `set` defaults to cone mode, where the arguments
// are directories; with --no-cone they are gitignore-style patterns.
import fs from 'node:fs';
import type { Config } from '../../config/index.js';
import { fetchPromisedBlobs } from '../../client/promised-objects.js';
import { GitError, UsageError } from '../../core/errors.js';
import type { Repository } from '../../repository/repository.js';
import { unquoteCStyle } from '../../worktree/attributes/rules.js';
import { indexPath } from '../../worktree/checkout.js';
import { entryStage } from '../../worktree/index-file/entry.js';
import { readIndexFile } from '../../worktree/index-file/read.js';
import { parsePathPattern, type PathPattern } from '../../worktree/path-pattern.js';
import { recordNoSparseIndex, recordSparseMode } from '../../worktree/sparse/config.js';
import { SparseMatcher } from '../../worktree/sparse/matcher.js';
import { parseSparsePatterns, type SparsePatterns } from '../../worktree/sparse/patterns.js';
import { coneModeOf, readSparseCheckoutFile, TOP_LEVEL_PATTERNS, TOP_LEVEL_TEXT, writeFirstPatterns } from '../../worktree/sparse/settings.js';
import { updateSparsity, writePatternsAndUpdate, type SparsityOptions } from '../../worktree/sparse/update.js';
import { ConePatterns, conePattern, normalizePath, patternsText } from '../../worktree/sparse/write-patterns.js';
import { fatal, type CommandContext } from '../context.js';
import type { CommandHelp } from '../help.js';
import { writeAll } from '../output.js';
import { unknownOption } from '../parse-options.js';
import { cwdPrefix } from '../pathspec.js';
import { progressIf, progressWanted } from '../progress.js';
import { quoteCStyle } from '../quote.js';

export const help: CommandHelp = {
  summary: 'Reduce your working tree to a subset of tracked files',
  synopsis: [
    '(init | list | set | add | reapply | disable) [<options>]',
    'set [--[no-]cone] [--no-sparse-index] [--skip-checks] (--stdin | <patterns>)',
    'add [--skip-checks] (--stdin | <patterns>)',
    'init [--[no-]cone] [--no-sparse-index]',
    'reapply [--[no-]cone] [--no-sparse-index]',
  ],
  options: [
    ['--[no-]cone', 'initialize the sparse-checkout in cone mode'],
    ['--no-sparse-index', 'keep a full index (a sparse index is refused: tsgit does not write one)'],
    ['--skip-checks', 'skip some sanity checks on the given paths that might give false positives'],
    ['--stdin', 'read patterns from standard in'],
  ],
};

const say = (text: string): void => writeAll(2, Buffer.from(`${text}\n`, 'utf8'));
/** One char per byte, as the patterns are held. */
const binary = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
/** A gitignore-style pattern (one char per byte), as git's add_pattern takes it. */
const literal = (p: string): PathPattern => parsePathPattern(Buffer.from(p, 'latin1'), true);

interface Options {
  cone?: boolean;
  noSparseIndex: boolean;
  skipChecks: boolean;
  stdin: boolean;
  /** The words left: patterns for set and add (git keeps unknown options among them). */
  rest: string[];
}

/**
 * The options of one subcommand: those in `known`; any other option is a usage error unless
 * `keepUnknown` (set and add, which take it as a pattern, as git's PARSE_OPT_KEEP_UNKNOWN_OPT).
 */
function parse(args: readonly string[], known: readonly string[], keepUnknown: boolean): Options {
  const o: Options = { noSparseIndex: false, skipChecks: false, stdin: false, rest: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      o.rest.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-' || (!known.includes(a) && keepUnknown)) {
      o.rest.push(a);
      continue;
    }
    switch (known.includes(a) ? a : '') {
      case '--cone': o.cone = true; break;
      case '--no-cone': o.cone = false; break;
      case '--skip-checks': o.skipChecks = true; break;
      case '--stdin': o.stdin = true; break;
      case '--sparse-index':
        throw new GitError('cli', 'unsupported', 'tsgit does not write a sparse index (--sparse-index); use --no-sparse-index');
      case '--no-sparse-index': o.noSparseIndex = true; break;
      default:
        throw unknownOption(a);
    }
  }
  return o;
}

/** The state of the work tree a subcommand starts from. */
class SparseState {
  readonly config: Config;
  /** core.sparseCheckout and core.sparseCheckoutCone as read (git's globals, updated as it goes). */
  apply: boolean;
  cone: boolean;
  /** Whether the index was read as a sparse work tree's (git reads it before changing the mode). */
  readonly readAsSparse: boolean;

  constructor(readonly ctx: CommandContext, readonly repo: Repository) {
    this.config = repo.loadConfig(ctx.env);
    this.apply = this.config.getBool('core', null, 'sparsecheckout') ?? false;
    this.cone = coneModeOf(this.config);
    this.readAsSparse = this.apply;
  }

  /** git's update_modes: the mode asked for, recorded when asked for or when it was off. */
  updateModes(o: Options): void {
    const record = o.cone !== undefined || !this.apply;
    this.cone = o.cone ?? (this.apply ? this.cone : true);
    this.apply = true;
    if (record) recordSparseMode(this.repo.gitDir, this.repo.commonDir, this.cone ? 'cone' : 'patterns');
    if (o.noSparseIndex) recordNoSparseIndex(this.repo.gitDir, this.repo.commonDir);
  }

  /** Runs an update of the work tree and prints what git prints. */
  async report(update: Promise<string[]>): Promise<number> {
    for (const line of await update) say(line);
    return 0;
  }

  get sparsityOptions(): SparsityOptions {
    return {
      env: this.ctx.env, config: this.repo.loadConfig(this.ctx.env), readAsSparse: this.readAsSparse,
      progress: progressIf(progressWanted({})),
      // A partial clone fetches what it writes back, as git does on demand.
      fetchBlobs: blobs => fetchPromisedBlobs(this.repo, blobs, this.ctx.env, this.ctx.cwd),
    };
  }

  /** The patterns file as it stands, read in the current mode; null when there is none. */
  existing(): SparsePatterns | null {
    const text = readSparseCheckoutFile(this.repo.gitDir);
    return text && parseSparsePatterns(text, this.cone, say);
  }

  matcher(patterns: SparsePatterns): SparseMatcher {
    return new SparseMatcher(patterns, this.config.getBool('core', null, 'ignorecase') ?? false);
  }
}

export default async function sparseCheckout(ctx: CommandContext, args: string[]): Promise<number> {
  const sub = args[0];
  if (sub === undefined) throw new UsageError('need a subcommand');
  const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!run) throw new UsageError(sub.startsWith('-') ? `unknown option \`${sub.replace(/^-+/, '')}'` : `unknown subcommand: \`${sub}'`);
  const repo = ctx.repository();
  if (!repo.workTree) throw fatal('this operation must be run in a work tree');
  return run(new SparseState(ctx, repo), args.slice(1));
}

const SUBCOMMANDS: Record<string, (s: SparseState, args: string[]) => Promise<number>> = {
  async list(s, args) {
    if (!s.apply) throw fatal('this worktree is not sparse');
    parse(args, [], false);
    const patterns = s.existing();
    if (!patterns) {
      say('warning: this worktree is not sparse (sparse-checkout file may not exist)');
      return 0;
    }
    if (patterns.cone) {
      const quotePath = s.config.getBool('core', null, 'quotepath') ?? true;
      const dirs = [...patterns.cone.recursive].sort().map(d => Buffer.concat([quoteCStyle(Buffer.from(d.slice(1), 'latin1'), quotePath), Buffer.from('\n')]));
      writeAll(1, Buffer.concat(dirs));
    } else {
      writeAll(1, patternsText(patterns.patterns));
    }
    return 0;
  },

  async init(s, args) {
    const o = parse(args, ['--cone', '--no-cone', '--sparse-index', '--no-sparse-index'], false);
    s.updateModes(o);
    const existing = s.existing();
    if (existing) return s.report(updateSparsity(s.repo, s.matcher(existing), s.sparsityOptions));
    if (!s.repo.openRefs(s.ctx.env).head().oid) {
      // A repository without commits: nothing to update, the file alone.
      writeFirstPatterns(s.repo.gitDir);
      return 0;
    }
    const patterns = { patterns: TOP_LEVEL_PATTERNS.map(literal), cone: null };
    return s.report(writePatternsAndUpdate(s.repo, Buffer.from(TOP_LEVEL_TEXT), s.matcher(patterns), s.sparsityOptions));
  },

  async set(s, args) {
    const o = parse(args, ['--cone', '--no-cone', '--sparse-index', '--no-sparse-index', '--skip-checks', '--stdin'], true);
    s.updateModes(o);
    // Cone mode always has the top level; without it, no patterns means the top level too.
    if (!s.cone && !o.rest.length && !o.stdin) o.rest.push(...TOP_LEVEL_PATTERNS);
    else sanitize(s, o);
    const input = readInput(s, o);
    return s.report(s.cone ? writeCone(s, input) : writeLiteral(s, input.map(literal)));
  },

  async add(s, args) {
    if (!s.apply) throw fatal('no sparse-checkout to add to');
    const o = parse(args, ['--skip-checks', '--stdin'], true);
    sanitize(s, o);
    const input = readInput(s, o);
    const existing = s.existing();
    if (!existing) throw fatal('unable to load existing sparse-checkout patterns');
    if (!s.cone) return s.report(writeLiteral(s, [...existing.patterns, ...input.map(literal)]));
    if (!existing.cone) throw fatal('existing sparse-checkout patterns do not use cone mode');
    return s.report(writeCone(s, input, existing.cone.recursive));
  },

  async reapply(s, args) {
    if (!s.apply) throw fatal('must be in a sparse-checkout to reapply sparsity patterns');
    const o = parse(args, ['--cone', '--no-cone', '--sparse-index', '--no-sparse-index'], false);
    s.updateModes(o);
    const existing = s.existing();
    return s.report(updateSparsity(s.repo, existing && s.matcher(existing), s.sparsityOptions));
  },

  async disable(s, args) {
    parse(args, [], false);
    // Everything back in: the work tree first, then the mode off.
    const all = s.matcher({ patterns: [literal('/*')], cone: null });
    const code = await s.report(updateSparsity(s.repo, all, s.sparsityOptions));
    recordSparseMode(s.repo.gitDir, s.repo.commonDir, 'off');
    return code;
  },
};

/** The patterns given: the arguments, or the lines of stdin (in cone mode, C-quoted ones unquoted). */
function readInput(s: SparseState, o: Options): string[] {
  if (!o.stdin) return o.rest.map(binary);
  const text = fs.readFileSync(0).toString('latin1');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map(line => {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (!s.cone || l[0] !== '"') return l;
    const unquoted = unquoteCStyle(Buffer.from(l, 'latin1'), 0);
    if (!unquoted) throw fatal(`unable to unquote C-style string '${Buffer.from(l, 'latin1').toString('utf8')}'`);
    return Buffer.from(unquoted.bytes).toString('latin1');
  });
}

/**
 * git's sanitize_paths: in cone mode, arguments are directories from where the command runs,
 * and must look like directories; in either mode, a tracked file named alone is suspect.
 */
function sanitize(s: SparseState, o: Options): void {
  if (!o.rest.length) return;
  const prefix = cwdPrefix(s.ctx.cwd, s.repo.workTree);
  if (prefix && s.cone) {
    o.rest = o.rest.map(arg => {
      const full = normalizePath(prefix + binary(arg));
      if (full === null) throw fatal(`'${arg}' is outside repository at '${s.repo.workTree}'`);
      return Buffer.from(full, 'latin1').toString('utf8');
    });
  }
  if (o.skipChecks) return;
  if (prefix && !s.cone) throw fatal('please run from the toplevel directory in non-cone mode');
  if (s.cone) {
    for (const arg of o.rest) {
      if (arg[0] === '/') throw fatal('specify directories rather than patterns (no leading slash)');
      if (arg[0] === '!') throw fatal("specify directories rather than patterns.  If your directory starts with a '!', pass --skip-checks");
      if (/[*?[\]]/.test(arg)) throw fatal("specify directories rather than patterns.  If your directory really has any of '*?[]\\' in it, pass --skip-checks");
    }
  }
  const tracked = new Set<string>();
  for (const e of readIndexFile(indexPath(s.repo.gitDir, s.ctx.env))?.entries ?? []) {
    if (entryStage(e) === 0) tracked.add(Buffer.from(e.path).toString('latin1'));
  }
  for (const arg of o.rest) {
    if (!tracked.has(binary(arg))) continue;
    if (s.cone) throw fatal(`'${arg}' is not a directory; to treat it as a directory anyway, rerun with --skip-checks`);
    say(`warning: pass a leading slash before paths such as '${arg}' if you want a single file (see NON-CONE PROBLEMS in the git-sparse-checkout manual).`);
  }
}

/** Cone mode: the directories given (and `keep`, those already there), written and applied. */
function writeCone(s: SparseState, dirs: readonly string[], keep: Iterable<string> = []): Promise<string[]> {
  const cone = new ConePatterns();
  for (const line of dirs) {
    const dir = conePattern(line);
    if (dir !== null) cone.add(dir);
  }
  for (const dir of keep) cone.add(dir);
  const matcher = s.matcher({ patterns: [], cone: { recursive: cone.recursive, parent: cone.parent, full: false } });
  return writePatternsAndUpdate(s.repo, cone.fileText(), matcher, s.sparsityOptions);
}

/** Gitignore-style patterns, written one per line and applied. */
function writeLiteral(s: SparseState, patterns: PathPattern[]): Promise<string[]> {
  return writePatternsAndUpdate(s.repo, patternsText(patterns), s.matcher({ patterns, cone: null }), s.sparsityOptions);
}
