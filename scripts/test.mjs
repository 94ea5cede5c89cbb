// `npm test` after the build: node --test over dist/test/, with the suite's temporary repositories
// on tmpfs when the machine has room there. The suite creates and deletes some hundred thousand
// files; on ext4 the inode allocator then spends its time skipping inodes deleted moments ago
// (the kernel's recently_deleted(), 10-15% of a test file's CPU in `perf`), and each file costs
// journal work besides: the same files ran 6-12% less CPU and 12-21% less wall time with TMPDIR on
// /dev/shm. Without a large enough tmpfs (a container's 64 MiB /dev/shm, say), the system's
// temporary directory serves as before.
//
// The suite runs without NODE_EXTRA_CA_CERTS: Node 20 reads that bundle as every process starts,
// and every server the tests talk to is on loopback (README.md, "Running the tests").
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TMPFS = '/dev/shm';
/**
 * Free space asked of tmpfs: the suite held at most 118 MB there at once (`df` every 4 s through a
 * whole run), so a gibibyte leaves room for a suite several times larger.
 */
const NEEDED = 2 ** 30;

function tmpfsDirectory() {
  try {
    const s = fs.statfsSync(TMPFS);
    if (s.bavail * s.bsize < NEEDED) return null;
    return fs.mkdtempSync(path.join(TMPFS, 'tsgit-test-'));
  } catch {
    return null;
  }
}

const tmp = tmpfsDirectory();
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
if (tmp) env.TMPDIR = tmp;
const child = spawn(process.execPath, ['--test', '--test-concurrency=3', '--test-timeout=240000', 'dist/test/'],
  { cwd: ROOT, env, stdio: 'inherit' });
// A signal is passed on to the test runner, and this process waits for it to end and then removes
// what the tests left on tmpfs, which is memory.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  process.exitCode = code ?? 128 + os.constants.signals[signal];
});
