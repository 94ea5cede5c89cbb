// Whether a process of this host still runs, for files that name their owner's pid (a push's
// quarantine, gc.pid): signal 0 checks without sending anything.

export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
