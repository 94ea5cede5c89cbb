// The client of the sequential-push benchmarks (benchmarks.ts: pushBenchmark), started in the
// background while the measured server runs: node bench/push-driver.js '<config JSON>'. Once the
// server listens and has settled, `git push` (the system's git) pushes the prepared commits to
// main one at a time, each push the next commit, each waited for before the next starts; a push
// that fails ends the run. The server tree's CPU is read before the first push and after pushes 1,
// 10 and the last (each read 300 ms after the push, once the server has reaped what it started:
// http-backend and receive-pack, or git daemon's child), its Pss sampled every 250 ms as in
// serve-load-driver.ts. The results go to a JSON file and the server is sent SIGTERM, whether or
// not a push or the driver failed (drive-server.ts).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { driveServer } from './drive-server.js';
import { sleep, ticksPerSecond, tree } from './server-tree.js';

interface Config {
  port: number;
  url: string;
  /** The repository holding the commits, and the commits in the order they are pushed. */
  client: string;
  commits: string[];
  result: string;
}

export interface PushResult {
  pushes: { ok: boolean; ms: number; error: string | null }[];
  /** The server tree's CPU clock ticks after that many pushes (0: before the first). */
  cpu: { after: number; ticks: number }[];
  ticksPerSecond: number;
  /** Highest sum of Pss over the server's process tree while the pushes ran (bytes). */
  peakPss: number;
}

const cfg = JSON.parse(process.argv[2]!) as Config;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const run = promisify(execFile);

void driveServer(cfg.port, cfg.result, async (server, pss): Promise<PushResult> => {
  // Async pushes, so that the sampler runs while each is under way.
  const cpu = [{ after: 0, ticks: tree(server).ticks }];
  const pushes: PushResult['pushes'] = [];
  for (const [i, commit] of cfg.commits.entries()) {
    const t0 = Date.now();
    let error: string | null = null;
    try {
      await run('git', ['push', '-q', cfg.url, `${commit}:refs/heads/main`], { cwd: cfg.client, env });
    } catch (e) {
      error = String((e as Error).message).slice(0, 500);
    }
    pushes.push({ ok: !error, ms: Date.now() - t0, error });
    if (error) break;
    if (i === 0 || i === 9 || i === cfg.commits.length - 1) {
      await sleep(300);
      cpu.push({ after: i + 1, ticks: tree(server).ticks });
    }
  }
  return { pushes, cpu, ticksPerSecond: ticksPerSecond(), peakPss: pss.stop() };
});
