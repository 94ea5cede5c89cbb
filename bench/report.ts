// Medians of repeated runs and the tables that show them: one aligned for the terminal, one in
// Markdown to paste into BENCHMARKS.md. Ratios are tsgit / git, so below 1 means tsgit is ahead.
import type { Measurement } from './measure.js';

export interface SideResult {
  runs: Measurement[];
  /** Why this tool's measurements stopped, when a run failed. */
  failure: string | null;
  /** SHA-1 of stdout in the checked run, when --check-output was given. */
  outputSha1: string | null;
}

export interface BenchResult {
  id: string;
  corpus: string;
  tsgit: SideResult;
  git: SideResult;
}

interface Summary {
  wall: number;
  cpu: number;
  rssMiB: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function summarize(side: SideResult): Summary | null {
  if (side.failure !== null || side.runs.length === 0) return null;
  return {
    wall: median(side.runs.map((m) => m.wall)),
    cpu: median(side.runs.map((m) => m.user + m.sys)),
    rssMiB: median(side.runs.map((m) => m.rssKiB / 1024)),
  };
}

function ratio(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(2)}x` : '-';
}

function outputCheck(r: BenchResult): string {
  if (r.tsgit.outputSha1 === null || r.git.outputSha1 === null) return '-';
  return r.tsgit.outputSha1 === r.git.outputSha1 ? 'same' : 'DIFFERS';
}

const HEADER = [
  'benchmark', 'corpus', 'runs', 'tsgit wall s', 'git wall s', 'wall ratio', 'tsgit CPU s', 'git CPU s', 'CPU ratio',
  'tsgit RSS MiB', 'git RSS MiB', 'RSS ratio', 'output',
];

function rows(results: BenchResult[]): string[][] {
  return results.map((r) => {
    const t = summarize(r.tsgit), g = summarize(r.git);
    const cell = (s: Summary | null, k: keyof Summary, digits: number): string => (s ? s[k].toFixed(digits) : 'failed');
    const runs = `${r.tsgit.runs.length}/${r.git.runs.length}`;
    return [
      r.id, r.corpus, runs,
      cell(t, 'wall', 2), cell(g, 'wall', 2), t && g ? ratio(t.wall, g.wall) : '-',
      cell(t, 'cpu', 2), cell(g, 'cpu', 2), t && g ? ratio(t.cpu, g.cpu) : '-',
      cell(t, 'rssMiB', 0), cell(g, 'rssMiB', 0), t && g ? ratio(t.rssMiB, g.rssMiB) : '-',
      outputCheck(r),
    ];
  });
}

function failures(results: BenchResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    for (const tool of ['tsgit', 'git'] as const) {
      const f = r[tool].failure;
      if (f !== null) out.push(`${r.id}: ${tool} failed: ${f}`);
    }
  }
  return out;
}

export function textTable(results: BenchResult[]): string {
  const all = [HEADER, ...rows(results)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]): string => row.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(HEADER), ...all.slice(1).map(line), ...failures(results)].join('\n');
}

export function markdownTable(results: BenchResult[]): string {
  const line = (row: string[]): string => `| ${row.join(' | ')} |`;
  const sep = `|${HEADER.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`;
  const notes = failures(results).map((f) => `- ${f}`);
  return [line(HEADER), sep, ...rows(results).map(line), ...(notes.length ? ['', ...notes] : [])].join('\n');
}
