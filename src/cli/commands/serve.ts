// tsgit serve [options] <root>: serves every repository under <root> over smart HTTP and git://,
// printing the clone URLs, until SIGTERM or SIGINT. Requests run in a pool of upload-pack worker
// processes (--workers, default one per CPU) started with the server; requests beyond them wait in
// a bounded queue. One access-log line per request goes to stderr (or --access-log). SIGTERM
// drains: no new connections, what was taken finishes for up to --grace-period seconds, exit 0;
// SIGINT does the same within at most 3 seconds, and a second signal ends at once.
import fs from 'node:fs';
import path from 'node:path';
import { GitError, UsageError } from '../../core/errors.js';
import { DEFAULT_MAX_CONNECTIONS } from '../../server/daemon.js';
import { DEFAULT_SERVICE_LIMITS, DEFAULT_TIMEOUTS, type ServeTimeouts, type ServiceLimits } from '../../server/limits.js';
import type { DaemonServiceRule } from '../../server/service.js';
import { findService } from '../../server/services.js';
import { listRepositories, serve } from '../../server/serve.js';
import { DEFAULT_MAX_QUEUED, DEFAULT_MAX_QUEUED_BYTES } from '../../server/worker-pool.js';
import type { CommandContext } from '../context.js';

const USAGE = `usage: tsgit serve [--host <addr>] [--port <n>] [--git-port <n> | --no-git-daemon] [--export-all]
                   [--workers <n>] [--timeout <s>] [--init-timeout <s>] [--max-request-time <s>]
                   [--max-connections <n>] [--max-queue <n>] [--max-queue-memory <bytes>]
                   [--max-request-buffer <bytes>] [--max-wants <n>] [--max-haves <n>] [--max-rounds <n>]
                   [--enable=<service>] [--disable=<service>] [--allow-override=<service>] [--forbid-override=<service>]
                   [--grace-period <s>] [--access-log <file>] [-v | --verbose] [-q | --quiet] <root>`;

/** SIGINT's grace period at most: an operator at a terminal wants the prompt back. */
const SIGINT_GRACE = 3;

export default async function serveCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let host = '127.0.0.1', port = 8080, gitPort: number | null = 9418, exportAll = false;
  let workers: number | undefined, maxConnections = DEFAULT_MAX_CONNECTIONS, grace = 30;
  let maxQueued = DEFAULT_MAX_QUEUED, maxQueuedBytes = DEFAULT_MAX_QUEUED_BYTES;
  let accessLogFile: string | null = null, verbose = false, quiet = false;
  const limits: ServiceLimits = { ...DEFAULT_SERVICE_LIMITS };
  const timeouts: ServeTimeouts = { ...DEFAULT_TIMEOUTS };
  const services: Record<string, DaemonServiceRule> = {};
  let root: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    const [name, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value\n${USAGE}`);
      return v;
    };
    const count = (max = Number.MAX_SAFE_INTEGER) => parseCount(name, value(), max);
    const rule = (change: DaemonServiceRule) => {
      const service = value();
      if (!findService(service)) throw new UsageError(`${name}: no such service '${service}' (upload-pack is served)`);
      services[service] = { ...services[service], ...change };
    };
    switch (name) {
      case '--host': host = value(); break;
      case '--port': port = count(65535); break;
      case '--git-port': gitPort = count(65535); break;
      case '--no-git-daemon': gitPort = null; break;
      case '--export-all': exportAll = true; break;
      case '--workers':
        workers = count();
        if (workers === 0) throw new UsageError(`--workers needs at least 1\n${USAGE}`);
        break;
      case '--timeout': timeouts.idle = count(); break;
      case '--init-timeout': timeouts.init = count(); break;
      case '--max-request-time': timeouts.request = count(); break;
      case '--max-connections': maxConnections = count(); break;
      case '--max-queue': maxQueued = count(); break;
      case '--max-queue-memory': maxQueuedBytes = parseSize(name, value()); break;
      case '--max-request-buffer': limits.maxRequestBytes = parseSize(name, value()); break;
      case '--max-wants': limits.maxWants = count(); break;
      case '--max-haves': limits.maxHaves = count(); break;
      case '--max-rounds': limits.maxRounds = count(); break;
      case '--enable': rule({ enabled: true }); break;
      case '--disable': rule({ enabled: false }); break;
      case '--allow-override': rule({ overridable: true }); break;
      case '--forbid-override': rule({ overridable: false }); break;
      case '--grace-period': grace = count(); break;
      case '--access-log': accessLogFile = path.resolve(ctx.cwd, value()); break;
      case '-v': case '--verbose': verbose = true; break;
      case '-q': case '--quiet': quiet = true; break;
      default:
        if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'\n${USAGE}`);
        if (root !== null) throw new UsageError(USAGE);
        root = a;
    }
  }
  if (root === null || !host) throw new UsageError(USAGE);
  root = path.resolve(ctx.cwd, root);
  let accessFd = 2;
  if (accessLogFile) {
    try {
      accessFd = fs.openSync(accessLogFile, 'a');
    } catch (e) {
      throw new GitError('cli', 'access-log', `cannot open access log '${accessLogFile}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const say = (message: string) => process.stderr.write(`tsgit serve: ${message}\n`);
  const server = await serve({
    root, host, port, gitPort, exportAll, limits, timeouts, maxConnections, services,
    workers: { size: workers, maxQueued, maxQueuedBytes },
    log: say,
    accessLog: accessLogFile || !quiet ? line => fs.writeSync(accessFd, `${line}\n`) : undefined,
    verbose: verbose ? say : undefined,
  });
  if (!quiet) {
    const repos = listRepositories(root, exportAll);
    const lines = [`Serving ${root}`, `  smart HTTP: ${server.httpUrl}/`];
    if (server.gitUrl) lines.push(`  git://:     ${server.gitUrl}/`);
    if (repos.length === 0) lines.push(exportAll ? '  (no repositories found yet)' : '  (no repository has git-daemon-export-ok; use --export-all to serve them all)');
    for (const r of repos) {
      lines.push(`  git clone ${server.httpUrl}/${r}`);
      if (server.gitUrl) lines.push(`  git clone ${server.gitUrl}/${r}`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  }
  const signal = await new Promise<NodeJS.Signals>(resolve => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const seconds = signal === 'SIGINT' ? Math.min(grace, SIGINT_GRACE) : grace;
  if (verbose || server.inFlight() > 0) say(`${signal}: finishing ${server.inFlight()} requests (up to ${seconds} s), accepting no more`);
  // A second signal ends what is left at once.
  const now = () => { void server.close({ grace: 0 }); };
  process.once('SIGINT', now);
  process.once('SIGTERM', now);
  await server.close({ grace: seconds });
  if (accessFd !== 2) fs.closeSync(accessFd);
  return 0;
}

function parseCount(name: string, v: string, max: number): number {
  if (!/^[0-9]+$/.test(v) || Number(v) > max) throw new UsageError(`${name} needs a number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}, not '${v}'\n${USAGE}`);
  return Number(v);
}

/** A byte count as git writes one: digits with an optional k, m or g (powers of 1024). */
function parseSize(name: string, v: string): number {
  const m = /^([0-9]+)([kmg]?)$/i.exec(v);
  if (!m) throw new UsageError(`${name} needs a size (like 10m), not '${v}'\n${USAGE}`);
  return Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase());
}
