// The benchmark list. Each entry runs the same work with tsgit (`node bin/tsgit <tsgit argv>`) and
// with git-core (`git <git argv>`), in the corpus's bare repository unless `cwd` says otherwise.
//
// Strings in argv, cwd and stdin may use placeholders, replaced before each run:
//   {gitDir}  the corpus (bare repository)     {head}     its HEAD commit id
//   {pack}    the corpus's one .pack file      {idx}      its .idx file
//   {scratch} an empty directory private to this benchmark, removed at the end
//   {root}    the tsgit source tree
// setup/cleanup run before/after every single measured command (both tools, every run), e.g. to
// remove a clone target. Add entries for your issue here; `issue` groups them in BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { CorpusName } from './corpus.js';

export type Issue = 'foundation' | 'index-pack' | 'serve' | 'clone' | 'checkout' | 'bitmaps';

export interface BenchContext {
  root: string;
  gitDir: string;
  head: string;
  pack: string;
  idx: string;
  scratch: string;
}

export interface Benchmark {
  /** Short and unique; filters on the command line match `${issue}/${name}`. */
  name: string;
  issue: Issue;
  corpus: CorpusName;
  tsgit: string[];
  git: string[];
  cwd?: string;
  stdin?: string;
  setup?: (ctx: BenchContext, tool: 'tsgit' | 'git') => void | Promise<void>;
  cleanup?: (ctx: BenchContext, tool: 'tsgit' | 'git') => void | Promise<void>;
}

export const BENCHMARKS: Benchmark[] = [
  {
    name: 'rev-list-objects',
    issue: 'foundation',
    corpus: 'large',
    tsgit: ['rev-list', '--objects', '--all'],
    git: ['rev-list', '--objects', '--all'],
  },
  {
    name: 'cat-file-batch-all',
    issue: 'foundation',
    corpus: 'large',
    tsgit: ['cat-file', '--batch', '--batch-all-objects'],
    git: ['cat-file', '--batch', '--batch-all-objects'],
  },
  {
    // Indexing a pack in place, outside any repository (so neither tool runs collision checks).
    name: 'index-pack',
    issue: 'index-pack',
    corpus: 'large',
    cwd: '{scratch}',
    tsgit: ['index-pack', '-o', '{scratch}/out.idx', '{pack}'],
    git: ['index-pack', '-o', '{scratch}/out.idx', '{pack}'],
    cleanup: (ctx) => fs.rmSync(path.join(ctx.scratch, 'out.idx'), { force: true }),
  },
  {
    // Receiving a pack into an empty repository, as clone does.
    name: 'index-pack-stdin',
    issue: 'index-pack',
    corpus: 'large',
    cwd: '{scratch}/recv.git',
    stdin: '{pack}',
    tsgit: ['index-pack', '--stdin'],
    git: ['index-pack', '--stdin'],
    setup: (ctx) => freshRepo(path.join(ctx.scratch, 'recv.git')),
    cleanup: (ctx) => fs.rmSync(path.join(ctx.scratch, 'recv.git'), { recursive: true, force: true }),
  },
  {
    // The same with fsck and connectivity checks (tsgit's clone default; git's fetch.fsckObjects).
    name: 'index-pack-stdin-strict',
    issue: 'index-pack',
    corpus: 'large',
    cwd: '{scratch}/recv.git',
    stdin: '{pack}',
    tsgit: ['index-pack', '--strict', '--stdin'],
    git: ['index-pack', '--strict', '--stdin'],
    setup: (ctx) => freshRepo(path.join(ctx.scratch, 'recv.git')),
    cleanup: (ctx) => fs.rmSync(path.join(ctx.scratch, 'recv.git'), { recursive: true, force: true }),
  },
];

function freshRepo(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync('git', ['init', '-q', '--bare', dir]);
}
