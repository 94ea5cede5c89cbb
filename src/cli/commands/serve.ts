// tsgit serve [--host 127.0.0.1] [--port 8080] [--git-port 9418 | --no-git-daemon] [--export-all]
// [--timeout N] [--workers N] <root>: serves every repository under <root> over smart HTTP and
// git://, printing the clone URLs, until interrupted. Requests run in a pool of N upload-pack worker
// processes (default: one per CPU), started with the server; when the root holds a few
// repositories (up to 8) each worker opens them before the first request comes.
import { UsageError } from '../../core/errors.js';
import { listRepositories, serve } from '../../server/serve.js';
import type { CommandContext } from '../context.js';
import path from 'node:path';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Serve repositories over smart HTTP and git://',
  synopsis: ['[--host <addr>] [--port <n>] [--git-port <n> | --no-git-daemon] [--export-all] [--timeout <s>] [--workers <n>] <root>'],
  options: [
    ['--host <addr>', 'listen on this address (default 127.0.0.1)'],
    ['--port <n>', 'smart HTTP port (default 8080)'],
    ['--git-port <n>', 'git:// port (default 9418)'],
    ['--no-git-daemon', 'serve smart HTTP only'],
    ['--export-all', 'serve repositories without git-daemon-export-ok too'],
    ['--timeout <s>', 'drop a client idle this long (default 60)'],
    ['--workers <n>', 'upload-pack worker processes (default: one per CPU)'],
  ],
};

export default async function serveCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let host = '127.0.0.1', port = 8080, gitPort: number | null = 9418, exportAll = false, timeout = 60;
  let workers: number | undefined;
  let root: string | null = null;
  const number = (name: string, v: string | undefined) => {
    if (v === undefined || !/^[0-9]+$/.test(v) || Number(v) > 65535) throw new UsageError(`${name} needs a number`);
    return Number(v);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    const [name, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = () => inline ?? args[++i];
    if (name === '--host') host = value() ?? '';
    else if (name === '--port') port = number('--port', value());
    else if (name === '--git-port') gitPort = number('--git-port', value());
    else if (name === '--no-git-daemon') gitPort = null;
    else if (name === '--export-all') exportAll = true;
    else if (name === '--timeout') timeout = number('--timeout', value());
    else if (name === '--workers') {
      workers = number('--workers', value());
      if (workers === 0) throw new UsageError(`--workers needs at least 1`);
    }
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else if (root === null) root = a;
    else throw new UsageError('');
  }
  if (root === null || !host) throw new UsageError('');
  root = path.resolve(ctx.cwd, root);
  const server = await serve({
    root, host, port, gitPort, exportAll, idleTimeout: timeout, workers: { size: workers },
    log: message => process.stderr.write(`tsgit serve: ${message}\n`),
  });
  const repos = listRepositories(root, exportAll);
  const lines = [`Serving ${root}`, `  smart HTTP: ${server.httpUrl}/`];
  if (server.gitUrl) lines.push(`  git://:     ${server.gitUrl}/`);
  if (repos.length === 0) lines.push(exportAll ? '  (no repositories found yet)' : '  (no repository has git-daemon-export-ok; use --export-all to serve them all)');
  for (const r of repos) {
    lines.push(`  git clone ${server.httpUrl}/${r}`);
    if (server.gitUrl) lines.push(`  git clone ${server.gitUrl}/${r}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  await new Promise<void>(resolve => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
