// Smart HTTP (gitprotocol-http) on node's http/https:
//   GET  <base>/info/refs?service=git-upload-pack   -> the advertisement (v0) or capabilities (v2)
//   POST <base>/git-upload-pack                       -> one answer per request (stateless)
// and the same with git-receive-pack for a push, whose POST streams the pack (chunked).
// As git (http.followRedirects=initial): redirects are followed for the first request only, and
// the base of later requests moves to where the redirect led. Credentials come from the URL or,
// when the server answers 401, from a callback (the CLI's: git's credential helpers and askpass,
// client/credentials.ts), which is told whether they worked; they, and http.extraHeader's
// headers, are never sent to another origin after a redirect. Responses may be gzip- or deflate-encoded; request bodies over 1 KiB are gzipped, as
// git's remote-curl does.
import type http from 'node:http';
import type https from 'node:https';
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { GitError } from '../core/errors.js';
import { PacketReader } from '../protocol/pkt-line.js';
import {
  protocolParameter, type Connection, type ConnectOptions, type CredentialCallback, type Credentials, type HttpSettings, type RequestBody,
  type Service,
} from './connection.js';
import { loadHttpModules, type HttpModules } from './http-modules.js';
import { parseProxy, proxyAuthorization, tunnelAgent, viaProxy } from './http-proxy.js';
import { redact } from './url.js';

const MAX_REDIRECTS = 20;
const GZIP_REQUEST_OVER = 1024;
export const USER_AGENT = 'git/2.39.5 (tsgit/0.1.0)';

interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: http.IncomingMessage;
  url: URL;
}

export class HttpConnection implements Connection {
  readonly stateless = true;
  readonly name: string;
  reader!: PacketReader;
  private base: URL;
  private credentials: Credentials | null;
  /** The credentials in use were reported as working. */
  private approved = false;
  /** A redirect led to another origin: neither credentials nor extra headers go there. */
  private foreign = false;
  /** The HTTP proxy requests go through, if any. */
  private readonly proxy: URL | null;
  /** Keep-alive agents per scheme, so the POSTs of a negotiation reuse one connection. */
  private readonly agents = new Map<string, http.Agent>();
  private readonly requests = new Set<http.ClientRequest>();
  private aborted = false;
  private readonly service: Service;
  private readonly settings: HttpSettings;
  /** http.extraHeader's lines, as headers. */
  private readonly extraHeaders: http.OutgoingHttpHeaders = {};

  constructor(url: URL, private readonly options: ConnectOptions, private readonly modules: HttpModules) {
    this.service = options.service ?? 'git-upload-pack';
    this.name = redact(url);
    this.settings = options.httpSettings?.(url) ?? { extraHeaders: [] };
    try {
      this.proxy = this.settings.proxy ? parseProxy(this.settings.proxy) : null;
    } catch (e) {
      throw new GitError('transport', 'proxy', `unable to access '${this.name}': ${(e as Error).message}`);
    }
    for (const line of this.settings.extraHeaders) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new GitError('config', 'bad-value', `invalid http.extraHeader (no "name: value"): ${JSON.stringify(line)}`);
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      const had = this.extraHeaders[name];
      this.extraHeaders[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [String(had)]), value];
    }
    this.base = withoutCredentials(url);
    this.credentials = url.username || url.password
      ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : null;
  }

  /** Fetches info/refs, following redirects; sets `reader` to its body. */
  async discover(): Promise<void> {
    const target = appendPath(this.base, '/info/refs', `service=${this.service}`);
    const res = await this.authenticated((auth) => this.request('GET', target, null, {
      Accept: '*/*', Pragma: 'no-cache', ...this.protocolHeader(), ...auth,
    }, MAX_REDIRECTS));
    if (res.url.href !== target.href) this.rebase(res.url, target);
    const type = contentType(res.headers);
    if (type !== `application/x-${this.service}-advertisement`) {
      res.body.resume();
      throw new GitError('transport', 'dumb-http', `${this.name}: the server does not speak git's smart HTTP protocol ` +
        `(info/refs answered with Content-Type ${JSON.stringify(type ?? '')}); dumb HTTP is not supported`);
    }
    this.reader = new PacketReader(this.bodyChunks(res), this.name);
  }

  async send(body: RequestBody): Promise<PacketReader> {
    const target = appendPath(this.base, `/${this.service}`, null);
    let payload = body;
    const headers: http.OutgoingHttpHeaders = {
      'Content-Type': `application/x-${this.service}-request`,
      Accept: `application/x-${this.service}-result`,
      ...this.protocolHeader(),
    };
    // As git's remote-curl, only upload-pack's requests are gzipped; a pack is compressed already.
    if (Buffer.isBuffer(body) && this.service === 'git-upload-pack' && body.length > GZIP_REQUEST_OVER) {
      payload = zlib.gzipSync(body, { level: 1 });
      headers['Content-Encoding'] = 'gzip';
    }
    let sent = false;
    const res = await this.authenticated((auth) => {
      // A streamed body cannot be sent twice: a push whose POST is refused after info/refs was
      // accepted fails rather than asking for credentials again.
      if (sent && !Buffer.isBuffer(payload)) throw new GitError('transport', 'auth', `Authentication failed for '${this.name}'`);
      sent = true;
      return this.request('POST', target, payload, { ...headers, ...auth }, 0);
    });
    const type = contentType(res.headers);
    if (type !== `application/x-${this.service}-result`) {
      res.body.resume();
      throw new GitError('transport', 'bad-response', `${this.name}: POST ${this.service} answered with Content-Type ${JSON.stringify(type ?? '')}`);
    }
    return new PacketReader(this.bodyChunks(res), this.name);
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
  }

  abort(): void {
    this.aborted = true;
    for (const req of this.requests) req.destroy();
    for (const agent of this.agents.values()) agent.destroy();
  }

  private agentFor(url: URL): http.Agent {
    let agent = this.agents.get(url.protocol);
    if (!agent) {
      const tls = this.settings.tls;
      const options: https.AgentOptions = {
        keepAlive: true, ...tls?.ca ? { ca: [...tls.ca] } : {}, ...tls && !tls.verify ? { rejectUnauthorized: false } : {},
      };
      if (url.protocol !== 'https:') agent = new this.modules.http.Agent({ keepAlive: true });
      else agent = this.proxy ? tunnelAgent(this.modules, this.proxy, options) : new this.modules.https.Agent(options);
      this.agents.set(url.protocol, agent);
    }
    return agent;
  }

  private protocolHeader(): http.OutgoingHttpHeaders {
    const p = protocolParameter(this.options.protocolVersion ?? 2);
    return p === null ? {} : { 'Git-Protocol': p };
  }

  /** Runs a request, asking for credentials on 401 until they work or the callback gives up. */
  private async authenticated(run: (auth: http.OutgoingHttpHeaders) => Promise<Response>): Promise<Response> {
    let tried: Credentials | null = null;
    for (;;) {
      const auth: http.OutgoingHttpHeaders = this.credentials
        ? { Authorization: `Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}` }
        : {};
      const res = await run(auth);
      if (res.status === 401) {
        res.body.resume();
        if (this.credentials) {
          tried = this.credentials;
          await this.settings.credentialResult?.(tried, false);
        }
        const next = await askCredentials(this.options.credentials ?? this.settings.credentials, this.name, realmOf(res.headers), tried);
        if (!next || (tried && next.username === tried.username && next.password === tried.password)) {
          throw new GitError('transport', 'auth', `Authentication failed for '${this.name}'`);
        }
        this.credentials = next;
        this.approved = false;
        continue;
      }
      if (res.status === 200) {
        if (this.credentials && !this.approved) {
          this.approved = true;
          await this.settings.credentialResult?.(this.credentials, true);
        }
        return res;
      }
      res.body.resume();
      if (res.status === 404) throw new GitError('transport', 'not-found', `repository '${this.name}' not found`);
      throw new GitError('transport', 'http-status', `unable to access '${this.name}': The requested URL returned error: ${res.status}`);
    }
  }

  private request(method: string, url: URL, body: RequestBody | null, headers: http.OutgoingHttpHeaders, redirects: number): Promise<Response> {
    if (this.aborted) return Promise.reject(new GitError('transport', 'aborted', `${this.name}: connection aborted`));
    const lib = url.protocol === 'https:' ? this.modules.https : this.modules.http;
    const agent = this.agentFor(url);
    // Plain http through a proxy asks it for the whole URL; https tunnels through it (the agent).
    const proxied = this.proxy && url.protocol === 'http:' ? this.proxy : null;
    return new Promise<Response>((resolve, reject) => {
      const options: http.RequestOptions = {
        method, agent,
        headers: {
          'User-Agent': USER_AGENT, 'Accept-Encoding': 'deflate, gzip', ...this.foreign ? {} : this.extraHeaders, ...headers,
          ...(Buffer.isBuffer(body) ? { 'Content-Length': body.length } : {}),
          ...proxied ? { Host: url.host, ...proxyAuthorization(proxied) } : {},
        },
      };
      const onResponse = (res: http.IncomingMessage): void => {
        this.requests.delete(req);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (status >= 300 && status < 400 && location !== undefined) {
          res.resume();
          if (redirects <= 0) {
            reject(new GitError('transport', 'redirect', `${this.name}: ${method} ${this.service} was redirected to ${location}; ` +
              'only the first request may be redirected'));
            return;
          }
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            reject(new GitError('transport', 'redirect', `${this.name}: invalid redirect to ${JSON.stringify(location)}`));
            return;
          }
          if (next.protocol !== 'http:' && next.protocol !== 'https:') {
            reject(new GitError('transport', 'redirect', `${this.name}: refusing redirect to ${next.protocol} URL`));
            return;
          }
          // Credentials are for the origin the user named, not wherever a server points.
          const sameOrigin = next.origin === url.origin;
          if (!sameOrigin) {
            this.credentials = null;
            this.foreign = true;
          }
          const nextHeaders = sameOrigin ? headers : withoutAuthorization(headers);
          this.request(method, withoutCredentials(next), body, nextHeaders, redirects - 1).then(resolve, reject);
          return;
        }
        resolve({ status, headers: res.headers, body: res, url });
      };
      const req = proxied ? lib.request({ ...viaProxy(url, proxied), ...options }, onResponse) : lib.request(url, options, onResponse);
      this.requests.add(req);
      req.on('error', (e) => {
        this.requests.delete(req);
        reject(new GitError('transport', 'io', `unable to access '${this.name}': ${e.message}`, { cause: e }));
      });
      if (body === null || Buffer.isBuffer(body)) {
        req.end(body ?? undefined);
        return;
      }
      // A streamed body (a push's pack) goes out chunked, as it is produced.
      pipeline(Readable.from(body), req, (e) => {
        if (e && !this.aborted) reject(new GitError('transport', 'io', `unable to access '${this.name}': ${e.message}`, { cause: e }));
      });
    });
  }

  /** The new base after a redirected info/refs: the redirect target minus what we appended. */
  private rebase(finalUrl: URL, asked: URL): void {
    const tail = `service=${this.service}`;
    const search = finalUrl.search;
    if (!finalUrl.pathname.endsWith('/info/refs') || !(search === `?${tail}` || search.endsWith(`&${tail}`))) {
      throw new GitError('transport', 'redirect', `unable to update url base from redirection:\n  asked for: ${redact(asked)}\n   redirect: ${redact(finalUrl)}`);
    }
    const base = new URL(finalUrl.href);
    base.pathname = finalUrl.pathname.slice(0, -'/info/refs'.length);
    base.search = search.slice(0, search.length - tail.length - 1);
    this.base = base;
  }

  private async *bodyChunks(res: Response): AsyncGenerator<Uint8Array> {
    const encoding = (res.headers['content-encoding'] ?? '').toLowerCase();
    let body: Readable = res.body;
    if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') {
      const decoder = encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
      body = pipeline(res.body, decoder, () => {}) as unknown as Readable;
    } else if (encoding !== '' && encoding !== 'identity') {
      res.body.resume();
      throw new GitError('transport', 'bad-response', `${this.name}: unsupported Content-Encoding ${JSON.stringify(encoding)}`);
    }
    try {
      for await (const chunk of body) yield chunk as Buffer;
    } catch (e) {
      if (this.aborted) return;
      throw new GitError('transport', 'io', `${this.name}: ${(e as Error).message}`, { cause: e });
    }
    if (!res.body.complete && !this.aborted) {
      throw new GitError('transport', 'io', `${this.name}: the HTTP response ended before it was complete`);
    }
  }
}

async function askCredentials(callback: CredentialCallback | undefined, url: string, realm: string | null,
  previous: Credentials | null): Promise<Credentials | null> {
  if (!callback) return null;
  return await callback({ url, realm, previous });
}

function realmOf(headers: http.IncomingHttpHeaders): string | null {
  const m = /realm="([^"]*)"/i.exec(headers['www-authenticate'] ?? '');
  return m ? m[1]! : null;
}

function contentType(headers: http.IncomingHttpHeaders): string | undefined {
  return headers['content-type']?.split(';')[0]!.trim().toLowerCase();
}

function withoutCredentials(url: URL): URL {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  return copy;
}

function withoutAuthorization(headers: http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  const copy = { ...headers };
  delete copy.Authorization;
  return copy;
}

/** `<base><suffix>`, keeping the base's query and adding `extra` to it, as git does. */
function appendPath(base: URL, suffix: string, extra: string | null): URL {
  const url = new URL(base.href);
  url.pathname = url.pathname.replace(/\/+$/, '') + suffix;
  if (extra !== null) url.search = url.search ? `${url.search}&${extra}` : `?${extra}`;
  return url;
}

export async function connectHttp(url: URL, options: ConnectOptions): Promise<HttpConnection> {
  const conn = new HttpConnection(url, options, await loadHttpModules());
  try {
    await conn.discover();
  } catch (e) {
    conn.abort();
    throw e;
  }
  return conn;
}
