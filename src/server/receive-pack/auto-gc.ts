// After a push, git runs `gc --auto` (receive.autogc): when too many packs (gc.autoPackLimit, 50,
// counting those without a .keep) or loose objects (gc.auto, 6700, estimated from objects/17 as
// git does) have piled up, everything is repacked into one pack in the background. tsgit starts
// `tsgit repack -a -d -q` (with -b where git would write a bitmap) as a detached process, so the
// push is answered at once. One gc at a time: gc.pid is taken with O_EXCL and the repack's
// wrapper removes it; one older than 12 hours, or left by a process on this host that is gone,
// is taken over, as git's lock_repo_for_gc does. A fetch is never refused meanwhile: the new pack
// is in place before the old ones go, and a reader keeps the files it has open.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TSGIT_EXECUTABLE, tsgitChildEnv } from '../../core/executable.js';
import { processRunning } from '../../core/process-running.js';
import { listPacks } from '../../packing/repack/prune.js';
import { SHELL, shellQuote } from '../../core/shell.js';

const STALE_MS = 12 * 3600 * 1000;

export interface AutoGcSettings {
  gcAuto: number;
  gcAutoPackLimit: number;
  writeBitmaps: boolean;
}

/** git's need_to_gc: is a repack due? */
function needsGc(objectsDir: string, s: AutoGcSettings): boolean {
  if (s.gcAuto <= 0) return false;
  if (s.gcAutoPackLimit > 0 && listPacks(path.join(objectsDir, 'pack')).filter((p) => !p.kept).length > s.gcAutoPackLimit) return true;
  // git's too_many_loose_objects: one fan-out directory stands for 1/256 of them.
  let loose = 0;
  try {
    loose = fs.readdirSync(path.join(objectsDir, '17')).filter((n) => /^[0-9a-f]{38}$/.test(n)).length;
  } catch {
    // No such directory: no loose objects there.
  }
  return loose > Math.ceil(s.gcAuto / 256);
}

/** Starts the background repack if one is due and none is running; returns whether it started. */
export function startAutoGc(commonDir: string, objectsDir: string, s: AutoGcSettings, env: NodeJS.ProcessEnv): boolean {
  if (!needsGc(objectsDir, s)) return false;
  // gc.pid is in the common directory, one lock for all work trees, as git's gc takes it.
  const pidFile = path.join(commonDir, 'gc.pid');
  if (!takeGcLock(pidFile)) return false;
  const repack = [...TSGIT_EXECUTABLE.args, '--git-dir', commonDir, 'repack', '-adq', s.writeBitmaps ? '--write-bitmap-index' : '--no-write-bitmap-index'];
  // The wrapper waits for the repack and then gives the lock back, whatever happened.
  const script = `"$0" "$@"; rm -f ${shellQuote(pidFile)}`;
  try {
    const child = spawn(SHELL, ['-c', script, TSGIT_EXECUTABLE.command, ...repack], {
      detached: true, stdio: 'ignore', env: { ...tsgitChildEnv(env), GIT_DIR: commonDir },
    });
    child.unref();
    fs.writeFileSync(pidFile, `${child.pid ?? process.pid} ${os.hostname()}`);
  } catch {
    fs.rmSync(pidFile, { force: true });
    return false;
  }
  return true;
}

function takeGcLock(pidFile: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.closeSync(fs.openSync(pidFile, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !staleLock(pidFile)) return false;
      fs.rmSync(pidFile, { force: true });
    }
  }
  return false;
}

function staleLock(pidFile: string): boolean {
  try {
    if (Date.now() - fs.statSync(pidFile).mtimeMs > STALE_MS) return true;
    const [pid, host] = fs.readFileSync(pidFile, 'utf8').trim().split(' ');
    return host === os.hostname() && !!pid && !processRunning(Number(pid));
  } catch {
    return false; // gone meanwhile: the next push takes the lock
  }
}
