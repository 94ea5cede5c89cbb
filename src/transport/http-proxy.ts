// Reaching an HTTP server through an HTTP proxy, as git's libcurl does: a plain http request goes
// to the proxy with the whole URL as its target; an https one through a tunnel the proxy opens
// with CONNECT, TLS running inside it end to end. A user and password in the proxy's URL go as
// Basic Proxy-Authorization. Which proxy applies (http.proxy, the *_proxy variables, no_proxy)
// is the configuration's business (client/http-settings.ts).
import type http from 'node:http';
import type https from 'node:https';
import type { Duplex } from 'node:stream';
import type tls from 'node:tls';
import type { HttpModules } from './http-modules.js';

/** A proxy as git takes it: `[http://][user[:password]@]host[:port]`, port 1080 by default (libcurl's). */
export function parseProxy(text: string): URL {
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  if (url.protocol !== 'http:') {
    throw new Error(`proxy '${text}': only http:// proxies are supported`);
  }
  if (!url.port) url.port = '1080';
  return url;
}

/** The Proxy-Authorization header for a proxy URL's credentials. */
export function proxyAuthorization(proxy: URL): http.OutgoingHttpHeaders {
  if (!proxy.username && !proxy.password) return {};
  const user = decodeURIComponent(proxy.username), pass = decodeURIComponent(proxy.password);
  return { 'Proxy-Authorization': `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` };
}

/** Where a request for `url` goes through `proxy` (absolute-form target, the server's Host). */
export function viaProxy(url: URL, proxy: URL): http.RequestOptions {
  return { host: proxy.hostname, port: Number(proxy.port), path: url.href, setHost: false };
}

/** An https agent whose connections are CONNECT tunnels through `proxy`. */
export function tunnelAgent(modules: HttpModules, proxy: URL, options: https.AgentOptions): https.Agent {
  const { http: httpModule, tls: tlsModule } = modules;
  // The class extends https.Agent, which exists only once the modules are loaded.
  class TunnelAgent extends modules.https.Agent {
    override createConnection(requested: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | undefined {
      // The agent hands over its TLS options (servername, ca, rejectUnauthorized) with the target's.
      const connection = requested as tls.ConnectionOptions & { host?: string; port?: number };
      const target = `${connection.host}:${connection.port}`;
      const fail = callback as (err: Error) => void;
      const req = httpModule.request({
        host: proxy.hostname, port: Number(proxy.port), method: 'CONNECT', path: target,
        headers: { Host: target, ...proxyAuthorization(proxy) },
      });
      req.once('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          fail(new Error(`Received HTTP code ${res.statusCode} from proxy after CONNECT`));
          return;
        }
        const servername = connection.servername ?? connection.host;
        callback!(null, tlsModule.connect({ ...connection, socket, ...servername && !/^[\d.]+$|:/.test(servername) ? { servername } : {} }));
      });
      req.once('error', fail);
      req.end();
      return undefined;
    }
  }
  return new TunnelAgent(options);
}
