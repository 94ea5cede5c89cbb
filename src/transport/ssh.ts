// ssh://, scp-like addresses: run the system ssh the way git's connect.c does, so the same
// GIT_SSH_COMMAND / GIT_SSH / core.sshCommand settings and ssh variants work:
//   <ssh> [-o SendEnv=GIT_PROTOCOL] [-p <port>] [user@]host "git-upload-pack '<path>'" (or git-receive-pack)
// GIT_SSH_COMMAND (and core.sshCommand) is a shell command; GIT_SSH is a program run without a
// shell. The variant (OpenSSH, plink, putty, tortoiseplink, simple) decides how a port is passed
// and whether the protocol version travels in GIT_PROTOCOL; an unknown program is probed with
// `-G` as git does.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { withoutLocalRepoEnv } from './local-repo-env.js';
import { GitError } from '../core/errors.js';
import { protocolParameter, serviceProgram, type ConnectOptions } from './connection.js';
import { spawnConnection } from './process.js';
import type { StreamConnection } from './stream-connection.js';
import { shellArgv, shellQuote } from '../core/shell.js';

export type SshVariant = 'ssh' | 'simple' | 'plink' | 'putty' | 'tortoiseplink';

export interface SshTarget {
  readonly user: string | null;
  readonly host: string;
  readonly port: number | null;
  readonly path: string;
  readonly display: string;
}

interface Launcher {
  command: string;
  args: string[];
}

/** How to start `program` with `args`: directly, or (a command line) as git's prepare_shell_cmd does. */
function launcher(program: string, viaShell: boolean, args: string[]): Launcher {
  return viaShell ? shellArgv(program, args) : { command: program, args };
}

function variantFromName(program: string, isCommandLine: boolean): SshVariant | null {
  const first = isCommandLine ? (program.trim().split(/\s+/)[0] ?? '') : program;
  const base = path.basename(first.replace(/^['"]|['"]$/g, '')).toLowerCase();
  if (base === 'ssh' || base === 'ssh.exe') return 'ssh';
  if (base === 'plink' || base === 'plink.exe') return 'plink';
  if (base === 'tortoiseplink' || base === 'tortoiseplink.exe') return 'tortoiseplink';
  return null;
}

function parseVariant(text: string): SshVariant | 'auto' {
  const v = text.toLowerCase();
  if (v === 'auto' || v === 'ssh' || v === 'simple' || v === 'plink' || v === 'putty' || v === 'tortoiseplink') return v;
  throw new GitError('transport', 'bad-config', `unknown ssh variant '${text}' (GIT_SSH_VARIANT or ssh.variant)`);
}

function pushOptions(args: string[], variant: SshVariant, port: number | null, sendProtocol: boolean): void {
  if (variant === 'ssh' && sendProtocol) args.push('-o', 'SendEnv=GIT_PROTOCOL');
  if (variant === 'tortoiseplink') args.push('-batch');
  if (port !== null) {
    if (variant === 'simple') throw new GitError('transport', 'unsupported', "ssh variant 'simple' does not support setting port");
    args.push(variant === 'ssh' ? '-p' : '-P', String(port));
  }
}

export interface SshInvocation {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** The process git would start for this address: exported for tests and for `--dry-run`-like uses. */
export function sshInvocation(target: SshTarget, options: ConnectOptions): SshInvocation {
  const env = options.env ?? process.env;
  const version = options.protocolVersion ?? 2;
  const sshHost = target.user !== null ? `${target.user}@${target.host}` : target.host;
  if (sshHost.startsWith('-')) throw new GitError('transport', 'bad-url', `strange hostname '${sshHost}' blocked`);
  const shellCommand = env.GIT_SSH_COMMAND || options.sshCommand || null;
  const program = shellCommand ?? (env.GIT_SSH || 'ssh');
  const viaShell = shellCommand !== null;
  const override = env.GIT_SSH_VARIANT ?? options.sshVariant;
  let variant: SshVariant | 'auto' = override !== undefined ? parseVariant(override) : (variantFromName(program, viaShell) ?? 'auto');
  const protocol = protocolParameter(version);
  if (variant === 'auto') {
    const probeArgs = ['-G'];
    pushOptions(probeArgs, 'ssh', target.port, protocol !== null);
    probeArgs.push(sshHost);
    const probe = launcher(program, viaShell, probeArgs);
    const probeEnv = protocol !== null ? { ...env, GIT_PROTOCOL: protocol } : env;
    const r = spawnSync(probe.command, probe.args, { env: probeEnv, stdio: 'ignore' });
    variant = r.status === 0 ? 'ssh' : 'simple';
  }
  const args: string[] = [];
  pushOptions(args, variant, target.port, protocol !== null);
  args.push(sshHost, `${serviceProgram(options)} ${shellQuote(target.path)}`);
  const childEnv = withoutLocalRepoEnv(env);
  if (variant === 'ssh' && protocol !== null) childEnv.GIT_PROTOCOL = protocol;
  else delete childEnv.GIT_PROTOCOL;
  const run = launcher(program, viaShell, args);
  return { command: run.command, args: run.args, env: childEnv };
}

export function connectSsh(target: SshTarget, options: ConnectOptions): StreamConnection {
  const inv = sshInvocation(target, options);
  return spawnConnection({ name: target.display, ...inv, onStderr: options.onStderr });
}
