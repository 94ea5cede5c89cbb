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
];
