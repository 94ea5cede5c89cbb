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
import { findService, SERVICES } from '../../server/services.js';
import { listRepositories, serve } from '../../server/serve.js';
import { DEFAULT_MAX_QUEUED, DEFAULT_MAX_QUEUED_BYTES } from '../../server/worker-pool.js';
import type { CommandContext } from '../context.js';
import type { CommandHelp } from '../help.js';
import { parseOptions } from '../parse-options.js';

export const help: CommandHelp = {
  summary: 'Serve repositories over smart HTTP and git://',
  synopsis: ['[<options>] <root>'],
  options: [
    ['--host <addr>', 'listen on this address (default 127.0.0.1)'],
    ['--port <n>', 'smart HTTP port (default 8080; 0: a free one, printed)'],
    ['--git-port <n>', 'git:// port (default 9418; 0: a free one, printed)'],
    ['--no-git-daemon', 'serve smart HTTP only'],
    ['--socket <path>', 'answer `tsgit upload-pack` relays on this Unix socket (TSGIT_SERVE_SOCKET)'],
    ['--export-all', 'serve repositories without git-daemon-export-ok too'],
    ['--workers <n>', 'service worker processes (default: one per CPU)'],
    ['--timeout <s>', `drop a client idle this long (default ${DEFAULT_TIMEOUTS.idle})`],
    ['--init-timeout <s>', `deadline for a request to arrive whole (default ${DEFAULT_TIMEOUTS.init})`],
    ['--max-request-time <s>', `total time for a request once served (default ${DEFAULT_TIMEOUTS.request})`],
    ['--max-connections <n>', `connections at once, as git daemon's (default ${DEFAULT_MAX_CONNECTIONS})`],
    ['--max-queue <n>', `requests waiting for a worker (default ${DEFAULT_MAX_QUEUED})`],
    ['--max-queue-memory <bytes>', `bytes held for waiting requests (default ${DEFAULT_MAX_QUEUED_BYTES >> 20}m)`],
    ['--max-request-buffer <bytes>', `largest upload-pack request body (default ${DEFAULT_SERVICE_LIMITS.maxRequestBytes >> 20}m)`],
    ['--max-wants <n>', `wants in a request (default ${DEFAULT_SERVICE_LIMITS.maxWants})`],
    ['--max-haves <n>', `haves in a request (default ${DEFAULT_SERVICE_LIMITS.maxHaves})`],
    ['--max-rounds <n>', `negotiation rounds (default ${DEFAULT_SERVICE_LIMITS.maxRounds})`],
    ['--enable=<service>', 'serve this service over git:// (receive-pack)'],
    ['--disable=<service>', 'do not serve this service over git://'],
    ['--allow-override=<service>', "let a repository's daemon.<service> decide"],
    ['--forbid-override=<service>', "do not let a repository's daemon.<service> decide"],
    ['--grace-period <s>', 'on SIGTERM, time left to in-flight requests (default 30)'],
    ['--access-log <file>', 'one line per request to this file (default stderr)'],
    ['-v, --verbose', 'log connections and requests'],
    ['-q, --quiet', 'log nothing but errors'],
  ],
};

/** SIGINT's grace period at most: an operator at a terminal wants the prompt back. */
const SIGINT_GRACE = 3;

export default async function serveCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let host = '127.0.0.1', port = 8080, gitPort: number | null = 9418, exportAll = false;
  let workers: number | undefined, maxConnections = DEFAULT_MAX_CONNECTIONS, grace = 30;
  let maxQueued = DEFAULT_MAX_QUEUED, maxQueuedBytes = DEFAULT_MAX_QUEUED_BYTES;
  let accessLogFile: string | null = null, socket: string | undefined, verbose = false, quiet = false;
  const limits: ServiceLimits = { ...DEFAULT_SERVICE_LIMITS };
  const timeouts: ServeTimeouts = { ...DEFAULT_TIMEOUTS };
  const services: Record<string, DaemonServiceRule> = {};
  const roots = parseOptions(args, (name, value) => {
    const count = (max = Number.MAX_SAFE_INTEGER) => parseCount(name, value(), max);
    const rule = (change: DaemonServiceRule) => {
      const service = value();
      if (!findService(service)) throw new UsageError(`${name}: no such service '${service}' (served: ${SERVICES.map(s => s.name).join(', ')})`);
      services[service] = { ...services[service], ...change };
    };
    switch (name) {
      case '--host': host = value(); break;
      case '--port': port = count(65535); break;
      case '--git-port': gitPort = count(65535); break;
      case '--no-git-daemon': gitPort = null; break;
      case '--socket': socket = path.resolve(ctx.cwd, value()); break;
      case '--export-all': exportAll = true; break;
      case '--workers':
        workers = count();
        if (workers === 0) throw new UsageError(`--workers needs at least 1`);
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
      default: return false;
    }
    return true;
  }, { missingValue: (name) => new UsageError(`${name} needs a value`), bundles: false });
  if (roots.length !== 1 || !host) throw new UsageError('');
  const root = path.resolve(ctx.cwd, roots[0]!);
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
    root, host, port, gitPort, exportAll, limits, timeouts, maxConnections, services, socket,
    workers: { size: workers, maxQueued, maxQueuedBytes },
    log: say,
    accessLog: accessLogFile || !quiet ? line => fs.writeSync(accessFd, `${line}\n`) : undefined,
    verbose: verbose ? say : undefined,
  });
  if (!quiet) {
    const repos = listRepositories(root, exportAll);
    const lines = [`Serving ${root}`, `  smart HTTP: ${server.httpUrl}/`];
    if (server.gitUrl) lines.push(`  git://:     ${server.gitUrl}/`);
    if (server.socket) lines.push(`  relays:     ${server.socket} (TSGIT_SERVE_SOCKET for tsgit upload-pack)`);
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
  if (!/^[0-9]+$/.test(v) || Number(v) > max) throw new UsageError(`${name} needs a number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}, not '${v}'`);
  return Number(v);
}

/** A byte count as git writes one: digits with an optional k, m or g (powers of 1024). */
function parseSize(name: string, v: string): number {
  const m = /^([0-9]+)([kmg]?)$/i.exec(v);
  if (!m) throw new UsageError(`${name} needs a size (like 10m), not '${v}'`);
  return Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase());
}
