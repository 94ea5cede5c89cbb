// What the server-side drivers (serve-load-driver.ts, push-driver.ts) read of a measured server:
// the process listening on a port, its process tree's CPU and memory from /proc, and when it has
// settled after starting.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

export const listening = (port: number) => new Promise<boolean>(resolve => {
  const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
});

/** The process listening on `port`, once one does (at most a minute). */
export async function serverOn(port: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await sleep(50);
  }
  return Number(/pid=(\d+)/.exec(execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString())![1]);
}

/** The processes of the tree under `pid`, and their CPU clock ticks (live, and children reaped). */
export function tree(pid: number): { pids: number[]; ticks: number } {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const text = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(p), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
    } catch {
      // Gone meanwhile.
    }
  }
  const pids: number[] = [];
  let ticks = 0;
  const add = (p: number) => {
    const s = stats.get(p);
    if (!s) return;
    pids.push(p);
    ticks += s.ticks;
    for (const [c, cs] of stats) if (cs.ppid === p) add(c);
  };
  add(pid);
  return { pids, ticks };
}

/** The tree's memory: the sum of its processes' Pss, in bytes. */
export function treePss(pid: number): number {
  let total = 0;
  for (const p of tree(pid).pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/**
 * Waits until a server that starts work of its own (tsgit's workers opening the repository) has
 * finished it: its tree's CPU still for three seconds, at most a minute.
 */
export async function settle(pid: number): Promise<void> {
  let last = tree(pid).ticks;
  for (let quiet = 0, t = Date.now(); quiet < 3 && Date.now() - t < 60_000;) {
    await sleep(700);
    const now = tree(pid).ticks;
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

/** Samples the tree's Pss every 250 ms until stopped; stop() gives the highest sum seen. */
export function samplePss(pid: number): { stop: () => number } {
  let peak = 0;
  const timer = setInterval(() => { peak = Math.max(peak, treePss(pid)); }, 250);
  return { stop: () => { clearInterval(timer); return peak; } };
}

export const ticksPerSecond = () => Number(execFileSync('getconf', ['CLK_TCK']).toString());
