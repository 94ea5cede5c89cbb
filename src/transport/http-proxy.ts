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
  TunnelAgent ??= tunnelAgentClass(modules);
  return new TunnelAgent(proxy, options);
}

type TunnelAgentClass = new (proxy: URL, options: https.AgentOptions) => https.Agent;
let TunnelAgent: TunnelAgentClass | null = null;

/** The class, made once: it extends https.Agent, which exists only once the modules are loaded. */
function tunnelAgentClass(m: HttpModules): TunnelAgentClass {
  return class extends m.https.Agent {
    constructor(private readonly proxy: URL, options: https.AgentOptions) {
      super(options);
    }

    override createConnection(requested: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | undefined {
      // The agent hands over its TLS options (servername, ca, rejectUnauthorized) with the target's.
      const options = requested as tls.ConnectionOptions & { host?: string; port?: number };
      const target = `${options.host}:${options.port}`;
      const fail = callback as (err: Error) => void;
      const req = m.http.request({
        host: this.proxy.hostname, port: Number(this.proxy.port), method: 'CONNECT', path: target,
        headers: { Host: target, ...proxyAuthorization(this.proxy) },
      });
      req.once('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          fail(new Error(`Received HTTP code ${res.statusCode} from proxy after CONNECT`));
          return;
        }
        const servername = options.servername ?? options.host;
        callback!(null, m.tls.connect({ ...options, socket, ...servername && !/^[\d.]+$|:/.test(servername) ? { servername } : {} }));
      });
      req.once('error', fail);
      req.end();
      return undefined;
    }
  };
}
