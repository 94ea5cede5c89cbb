// The benchmark harness: `npm run bench -- [--corpus NAME] [--runs N] [--warmup N] [--check-output]
// [--list] [FILTER...]`. For each selected benchmark (bench/benchmarks.ts) it runs tsgit and
// git-core on the same corpus, alternating which goes first, measures each under GNU time, and
// prints medians and tsgit/git ratios as a terminal table and as Markdown for BENCHMARKS.md.
// A tool whose command fails is reported with its error and skipped for the rest of that
// benchmark; the other benchmarks still run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCHMARKS, type BenchContext, type Benchmark } from './benchmarks.js';
import { CORPORA, type Corpus, type CorpusName, describeCorpus, ensureCorpus, readMetadata } from './corpus.js';
import { describeMachine, formatMachine } from './machine.js';
import { checkGnuTime, errorLine, measure, type Measurement } from './measure.js';
import { type BenchResult, type SideResult, markdownTable, textTable } from './report.js';
import { ROOT } from './text-pool.js';

const TSGIT = path.join(ROOT, 'bin', 'tsgit');
const USAGE = 'usage: npm run bench -- [--corpus small|large|wide] [--runs N] [--warmup N] [--check-output] [--list] [FILTER...]\n' +
  '  --corpus NAME    run every selected benchmark on this corpus instead of its own\n' +
  '  --runs N         measured runs per tool (default 5); medians are reported\n' +
  '  --warmup N       unmeasured runs per tool first (default 1), to warm the page cache\n' +
  '  --check-output   hash both tools\' stdout in the first run and report whether they match\n' +
  '  --list           list the benchmarks and exit\n' +
  '  FILTER           run only benchmarks whose "issue/name" contains one of these strings';

/**
 * Both tools see the same environment, without the user's or the system's git configuration, and
 * without NODE_EXTRA_CA_CERTS: node parses that CA bundle at every start, before any script runs
 * (35 ms of CPU for the 200 KB system bundle here), and no benchmark makes a TLS connection. An
 * upload-pack that sshd starts does not have it either.
 */
const BENCH_ENV: NodeJS.ProcessEnv = {
  ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', TZ: 'UTC',
};
delete BENCH_ENV.NODE_EXTRA_CA_CERTS;

interface Options {
  corpus: CorpusName | null;
  runs: number;
  warmup: number;
  checkOutput: boolean;
  list: boolean;
  filters: string[];
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Options {
  const opts: Options = { corpus: null, runs: 5, warmup: 1, checkOutput: false, list: false, filters: [] };
  const count = (flag: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} needs an integer >= ${min}, got "${v ?? ''}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--corpus') {
      const v = argv[++i];
      if (v === undefined || !(v in CORPORA)) throw new UsageError(`--corpus needs one of ${Object.keys(CORPORA).join(', ')}, got "${v ?? ''}"`);
      opts.corpus = v as CorpusName;
    } else if (a === '--runs') opts.runs = count(a, argv[++i], 1);
    else if (a === '--warmup') opts.warmup = count(a, argv[++i], 0);
    else if (a === '--check-output') opts.checkOutput = true;
    else if (a === '--list') opts.list = true;
    else if (a === '--help' || a === '-h') throw new UsageError('');
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
    else opts.filters.push(a);
  }
  return opts;
}

const id = (b: Benchmark): string => `${b.issue}/${b.name}`;

function log(msg: string): void {
  console.error(msg);
}

function onePack(gitDir: string, ext: 'pack' | 'idx'): string {
  const dir = path.join(gitDir, 'objects', 'pack');
  const packs = fs.readdirSync(dir).filter((n) => n.endsWith('.pack'));
  return packs.length === 1 ? path.join(dir, packs[0]!.replace(/\.pack$/, `.${ext}`)) : '';
}

function substitute(s: string, ctx: BenchContext): string {
  return s.replace(/\{(gitDir|head|pack|idx|scratch|root)\}/g, (_, k: keyof BenchContext) => {
    if (ctx[k] === '') throw new Error(`{${k}} is used, but ${ctx.gitDir} does not have exactly one pack`);
    return ctx[k];
  });
}

function formatRun(tool: string, m: Measurement): string {
  return `${tool} ${m.wall.toFixed(2)} s wall, ${(m.user + m.sys).toFixed(2)} s CPU, ${Math.round(m.rssKiB / 1024)} MiB`;
}

async function runBenchmark(b: Benchmark, corpus: Corpus, corpusName: string, opts: Options, scratchRoot: string): Promise<BenchResult> {
  const scratch = fs.mkdtempSync(path.join(scratchRoot, `${b.name}-`));
  const ctx: BenchContext = {
    root: ROOT, gitDir: corpus.gitDir, head: corpus.head,
    pack: onePack(corpus.gitDir, 'pack'), idx: onePack(corpus.gitDir, 'idx'), scratch,
  };
  const argv = {
    tsgit: [process.execPath, TSGIT, ...b.tsgit.map((a) => substitute(a, ctx))],
    git: ['git', ...b.git.map((a) => substitute(a, ctx))],
  };
  const cwd = substitute(b.cwd ?? '{gitDir}', ctx);
  const env = {
    tsgit: { ...BENCH_ENV, ...Object.fromEntries(Object.entries(b.tsgitEnv ?? {}).map(([k, v]) => [k, substitute(v, ctx)])) },
    git: BENCH_ENV,
  };
  const stdin = b.stdin === undefined ? undefined : substitute(b.stdin, ctx);
  const report = path.join(scratchRoot, 'time-report');
  const result: BenchResult = { id: id(b), corpus: corpusName, tsgit: emptySide(), git: emptySide() };

  log(`\n${id(b)} on ${corpusName} (${cwd})\n  tsgit: node bin/tsgit ${b.tsgit.join(' ')}\n  git:   git ${b.git.join(' ')}`);
  try {
    for (let i = 0; i < opts.warmup + opts.runs; i++) {
      const measured = i >= opts.warmup;
      const hash = opts.checkOutput && i === 0;
      const line: string[] = [];
      // Alternate which tool goes first so neither always inherits the other's cache state.
      for (const tool of i % 2 === 0 ? (['tsgit', 'git'] as const) : (['git', 'tsgit'] as const)) {
        const side = result[tool];
        if (side.failure !== null) continue;
        await b.setup?.(ctx, tool);
        const m = await measure({ argv: argv[tool], cwd, env: env[tool], stdin, hashStdout: hash }, report);
        await b.cleanup?.(ctx, tool);
        if (m.status !== 0) {
          side.failure = `exit status ${m.status}: ${errorLine(m.stderrTail)}`;
          line.push(`${tool} FAILED (${side.failure})`);
          continue;
        }
        if (hash) side.outputSha1 = `${m.stdoutSha1} (${m.stdoutBytes} bytes)`;
        if (measured) side.runs.push(m);
        line.push(formatRun(tool, m));
      }
      log(`  ${measured ? `run ${i - opts.warmup + 1}/${opts.runs}` : `warmup ${i + 1}/${opts.warmup}`}: ${line.join('; ') || 'skipped'}`);
    }
    if (opts.checkOutput && result.tsgit.outputSha1 !== null && result.git.outputSha1 !== null) {
      const same = result.tsgit.outputSha1 === result.git.outputSha1;
      log(`  output: ${same ? 'identical' : `DIFFERS: tsgit ${result.tsgit.outputSha1}, git ${result.git.outputSha1}`}`);
    }
  } finally {
    // A server that setup started for every run is stopped, whatever happened to them.
    await b.finish?.(ctx);
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  return result;
}

function emptySide(): SideResult {
  return { runs: [], failure: null, outputSha1: null };
}

async function main(argv: string[]): Promise<number> {
  let opts: Options;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.message) console.error(err.message);
    console.error(USAGE);
    return err.message ? 129 : 0;
  }
  const selected = BENCHMARKS.filter((b) => opts.filters.length === 0 || opts.filters.some((f) => id(b).includes(f)));
  if (opts.list) {
    for (const b of BENCHMARKS) console.log(`${id(b).padEnd(40)} ${b.corpus.padEnd(6)} git ${b.git.join(' ')}`);
    return 0;
  }
  if (selected.length === 0) {
    console.error(`no benchmark matches ${opts.filters.join(', ')} (see --list)`);
    return 129;
  }
  checkGnuTime();
  const machine = formatMachine(describeMachine(ROOT));
  console.log(machine);

  const corpora = new Map<CorpusName, Corpus>();
  for (const b of selected) {
    const name = opts.corpus ?? b.corpus;
    if (corpora.has(name)) continue;
    const corpus = await ensureCorpus(name, { log });
    corpora.set(name, corpus);
    console.log(describeCorpus(readMetadata(corpus.gitDir)!, corpus.gitDir));
  }

  const scratchRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tsgit-bench-run-'));
  const results: BenchResult[] = [];
  try {
    for (const b of selected) {
      const name = opts.corpus ?? b.corpus;
      results.push(await runBenchmark(b, corpora.get(name)!, name, opts, scratchRoot));
    }
  } finally {
    fs.rmSync(scratchRoot, { recursive: true, force: true });
  }
  console.log(`\nMedians of ${opts.runs} run(s) after ${opts.warmup} warmup(s); ratios are tsgit / git.\n`);
  console.log(textTable(results));
  console.log('\nMarkdown:\n');
  console.log(`${machine.split('\n').map((l) => `${l}  `).join('\n')}\n`);
  console.log(markdownTable(results));
  return 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
