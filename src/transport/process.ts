// A child process as the far end of a stateful connection (ssh, a local upload-pack). Its stderr is
// passed on as it arrives, as git lets ssh and upload-pack talk to the terminal; its exit status
// becomes the error when the conversation ends early.
import { spawn } from 'node:child_process';
import { GitError } from '../core/errors.js';
import { StreamConnection } from './stream-connection.js';

export interface SpawnSpec {
  /** Names the remote in messages. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Where it runs; by default where this process does. */
  readonly cwd?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly onStderr?: (chunk: Buffer) => void;
}

export function spawnConnection(spec: SpawnSpec): StreamConnection {
  const child = spawn(spec.command, spec.args, { ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}), env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const onStderr = spec.onStderr ?? ((chunk: Buffer) => process.stderr.write(chunk));
  child.stderr.on('data', onStderr);
  let killed = false;
  const exit = new Promise<void>((resolve, reject) => {
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(new GitError('transport', 'spawn', `cannot run ${spec.command}: ${e.code === 'ENOENT' ? 'No such file or directory' : e.message}`, { cause: e }));
    });
    child.on('close', (code, signal) => {
      if (code === 0 || killed) resolve();
      // As git: the far end's own stderr (already passed on) says why; its exit status is for
      // a debugger, not the user.
      else reject(new GitError('transport', 'remote-hung-up', 'the remote end hung up unexpectedly',
        { cause: { command: spec.command, code, signal } }));
    });
  });
  // Without a listener a failure before anyone asks would be an unhandled rejection.
  exit.catch(() => {});
  return new StreamConnection({
    name: spec.name,
    input: child.stdout,
    output: child.stdin,
    finished: () => exit,
    kill: () => {
      killed = true;
      child.stdin.destroy();
      child.stdout.destroy();
      child.kill('SIGTERM');
    },
  });
}
