// Each served request runs `tsgit upload-pack` in its own process, as git's http-backend and
// daemon run git-upload-pack: requests share nothing, run on all cores, and a client that goes
// away is handled by killing its process, which frees everything it held.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TSGIT = fileURLToPath(new URL('../../../bin/tsgit', import.meta.url));

export interface SpawnOptions {
  statelessRpc?: boolean;
  advertiseRefs?: boolean;
  /** Seconds of client silence before the process gives up. */
  timeout: number;
  /** GIT_PROTOCOL for the child ("version=2"). */
  protocol?: string;
}

/** Starts upload-pack on an already resolved git directory (--strict: no suffix guessing). */
export function spawnUploadPack(gitDir: string, opts: SpawnOptions): ChildProcess {
  const args = [TSGIT, 'upload-pack', '--strict', `--timeout=${opts.timeout}`];
  if (opts.statelessRpc) args.push('--stateless-rpc');
  if (opts.advertiseRefs) args.push('--advertise-refs');
  args.push(gitDir);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GIT_DIR;
  delete env.GIT_OBJECT_DIRECTORY;
  if (opts.protocol) env.GIT_PROTOCOL = opts.protocol;
  else delete env.GIT_PROTOCOL;
  return spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Ends a child that is no longer wanted; SIGKILL if it does not go within a second. */
export function stopChild(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 1000);
  t.unref();
  child.once('exit', () => clearTimeout(t));
}

/** A GIT_PROTOCOL value from a client: key=value pairs joined by ':', nothing else. */
export function sanitizeProtocol(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const parts = value.split(':').filter(p => /^[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?$/.test(p));
  return parts.length ? parts.join(':') : undefined;
}
