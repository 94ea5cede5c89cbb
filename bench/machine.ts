// What a set of results was measured on, printed with every run: numbers from shared machines mean
// little without the core count, the load at the time and the versions of both tools.
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  loadAverage: string;
  kernel: string;
  node: string;
  git: string;
  tsgitCommit: string;
}

function run(cmd: string, args: string[], cwd?: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : `unknown (${cmd} ${args.join(' ')} failed)`;
}

export function describeMachine(root: string): Machine {
  const dirty = run('git', ['status', '--porcelain', '--untracked-files=no'], root) !== '';
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30 * 10) / 10,
    loadAverage: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    git: run('git', ['--version']).replace(/^git version /, ''),
    tsgitCommit: run('git', ['rev-parse', '--short', 'HEAD'], root) + (dirty ? ' (with uncommitted changes)' : ''),
  };
}

export function formatMachine(m: Machine): string {
  return [
    `date: ${m.date}`,
    `machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB memory, ${m.kernel}, load average ${m.loadAverage}`,
    `node ${m.node}, git ${m.git}, tsgit ${m.tsgitCommit}`,
  ].join('\n');
}
