// tsgit's own servers in the test's process, on loopback: the HTTP handler under node:http and the
// git:// daemon over one root, each started by the test that uses them and stopped by stop().
import http from 'node:http';
import type net from 'node:net';
import { createDaemon, type DaemonOptions } from '../src/server/daemon.js';
import { createGitHttpHandler, type GitHttpHandler, type HttpHandlerOptions } from '../src/server/http.js';

export interface LibraryServers {
  readonly handler: GitHttpHandler;
  /** http://127.0.0.1:<port> */
  readonly httpBase: string;
  /** git://127.0.0.1:<port> */
  readonly gitBase: string;
  readonly gitPort: number;
  stop(): Promise<void>;
}

export async function startLibraryServers(http_: Omit<HttpHandlerOptions, 'root'> & { root: string },
  daemonOptions: Omit<DaemonOptions, 'root'> = {}): Promise<LibraryServers> {
  const handler = createGitHttpHandler(http_);
  const httpServer = http.createServer((req, res) => handler(req, res));
  await new Promise<void>(resolve => httpServer.listen(0, '127.0.0.1', resolve));
  const daemon = createDaemon({ root: http_.root, ...daemonOptions });
  await new Promise<void>(resolve => daemon.listen(0, '127.0.0.1', resolve));
  const gitPort = (daemon.address() as net.AddressInfo).port;
  return {
    handler,
    httpBase: `http://127.0.0.1:${(httpServer.address() as net.AddressInfo).port}`,
    gitBase: `git://127.0.0.1:${gitPort}`,
    gitPort,
    stop: async () => {
      httpServer.closeAllConnections();
      await new Promise(resolve => httpServer.close(resolve));
      await new Promise(resolve => daemon.close(resolve));
      await handler.close();
    },
  };
}
