// `tsgit serve`: one root served over smart HTTP and git:// at once, loopback by default.
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { isGitDirectory } from '../repository/discover.js';
import { createDaemon } from './daemon.js';
import { realRoot, resolveRepository } from './resolve-repository.js';
import { createUploadPackHandler, type HttpHandlerOptions } from './http.js';
import { MAX_WARM_REPOSITORIES, WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

export interface ServeOptions {
  root: string;
  host?: string;
  /** HTTP port; 0 picks a free one. */
  port?: number;
  /** git:// port, 0 picks a free one, null serves no git://. */
  gitPort?: number | null;
  exportAll?: boolean;
  idleTimeout?: number;
  log?: (message: string) => void;
  authorize?: HttpHandlerOptions['authorize'];
  /** The upload-pack workers both transports share (default: as many as CPUs). */
  workers?: WorkerPoolOptions;
}

export interface RunningServer {
  readonly httpUrl: string;
  readonly gitUrl: string | null;
  /** The upload-pack workers serving both transports. */
  readonly pool: WorkerPool;
  close(): Promise<void>;
}

export async function serve(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  // The workers start with the server, each opening the root's repositories when there are few
  // (more would be memory spent on guesses): the first request finds a warm worker.
  const exportAll = options.exportAll ?? false;
  const listed = listRepositories(options.root, exportAll);
  const warm: string[] = [];
  if (listed.length <= MAX_WARM_REPOSITORIES) {
    // As a request names them, so that the worker's open repository is the one it will look up.
    const root = realRoot(options.root);
    for (const name of listed) {
      const r = resolveRepository(root, name.split('/'), { exportAll });
      if (typeof r !== 'string') warm.push(r.gitDir);
    }
  }
  const pool = new WorkerPool({ warm, ...options.workers });
  pool.prestart();
  const handler = createUploadPackHandler({
    root: options.root, exportAll: options.exportAll, idleTimeout: options.idleTimeout, log: options.log, authorize: options.authorize, pool,
  });
  const httpServer = http.createServer((req, res) => handler(req, res));
  let httpPort: number;
  try {
    httpPort = await listen(httpServer, host, options.port ?? 8080);
  } catch (e) {
    await pool.close();
    throw e;
  }
  let daemon: net.Server | null = null;
  let gitPort: number | null = null;
  if (options.gitPort !== null) {
    daemon = createDaemon({ root: options.root, exportAll: options.exportAll, idleTimeout: options.idleTimeout, log: options.log, pool });
    try {
      gitPort = await listen(daemon, host, options.gitPort ?? 9418);
    } catch (e) {
      httpServer.close();
      await pool.close();
      throw e;
    }
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    httpUrl: `http://${shown}:${httpPort}`,
    gitUrl: gitPort === null ? null : `git://${shown}:${gitPort}`,
    pool,
    close: async () => {
      httpServer.closeAllConnections();
      // Stopping the workers ends the git:// connections they serve, so the daemon can close.
      await Promise.all([close(httpServer), daemon ? close(daemon) : undefined, pool.close()]);
    },
  };
}

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise(resolve => server.close(() => resolve()));
}

/** Repositories under `root` (two levels deep) a client could clone, as URL paths. */
export function listRepositories(root: string, exportAll: boolean): string[] {
  const found: string[] = [];
  const visit = (dir: string, rel: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const full = path.join(dir, e.name);
      const name = rel ? `${rel}/${e.name}` : e.name;
      const gitDir = isGitDirectory(full) ? full : isGitDirectory(path.join(full, '.git')) ? path.join(full, '.git') : null;
      if (gitDir) {
        if (exportAll || fs.existsSync(path.join(gitDir, 'git-daemon-export-ok'))) found.push(name);
      } else if (depth < 2) {
        visit(full, name, depth + 1);
      }
    }
  };
  visit(root, '', 0);
  return found;
}
