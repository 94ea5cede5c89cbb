// One conversation with a remote upload-pack: connect, read its first message (v2 capabilities,
// or a v0/v1 ref advertisement when the server does not speak v2), list refs, and hang up.
// Fetching a pack continues on the same session (fetch-pack.ts).
import { GitError } from '../core/errors.js';
import {
  capabilityValues, findCapability, formatCommandRequest, formatLsRefsArgs, hasCapability, commandFeatures, readLsRefsResponse,
  readRefAdvertisement, readServiceHeader, readV2CapabilityAdvertisement, FLUSH_PKT, type Capability, type AdvertisedRef,
  type Packet, type PacketSource,
} from '../protocol/index.js';
import type { Connection, ConnectOptions, RemoteUrl } from '../transport/index.js';
import { connectRemote } from './local-upload-pack.js';

export const AGENT = 'tsgit/0.1.0';

export interface RemoteRef {
  readonly name: string;
  /** null for an unborn HEAD (v2 `unborn`), which has only a symref target. */
  readonly oid: string | null;
  readonly symrefTarget?: string;
  /** What an annotated tag points at. */
  readonly peeled?: string;
}

export interface ListRefsOptions {
  /** Only refs starting with one of these (v2 ref-prefix; filtered locally for v0). Empty: all. */
  readonly prefixes?: readonly string[];
  /** Ask for an unborn HEAD's target, when the server supports it. */
  readonly unborn?: boolean;
}

export class RemoteSession {
  private v0Refs: AdvertisedRef[] = [];
  /** The server's shallow boundary, when it advertised one (v0 only). */
  serverShallows: string[] = [];

  private constructor(readonly conn: Connection, readonly version: 0 | 1 | 2, readonly capabilities: Capability[],
    private readonly serverOptions: readonly string[]) {}

  /** `serverOptions` go with every v2 command as `server-option` lines (git's -o). */
  static async open(url: RemoteUrl, options: ConnectOptions = {}, serverOptions: readonly string[] = []): Promise<RemoteSession> {
    const conn = await connectRemote(url, options);
    try {
      return await RemoteSession.handshake(conn, serverOptions);
    } catch (e) {
      conn.abort();
      throw e;
    }
  }

  private static async handshake(conn: Connection, serverOptions: readonly string[]): Promise<RemoteSession> {
    const reader = conn.reader;
    const first = await firstPacket(reader, 'git-upload-pack');
    let session: RemoteSession;
    if (first.type === 'data' && first.payload.toString('latin1').replace(/\n$/, '') === 'version 2') {
      session = new RemoteSession(conn, 2, await readV2CapabilityAdvertisement(reader), serverOptions);
    } else {
      const adv = await readRefAdvertisement(reader);
      // git's die_if_server_options: v0 and v1 have no way to send them.
      if (serverOptions.length > 0) {
        throw new GitError('client', 'server-options-need-v2', 'server options require protocol version 2 or later');
      }
      session = new RemoteSession(conn, adv.version, adv.capabilities, serverOptions);
      session.v0Refs = adv.refs;
      session.serverShallows = adv.shallows;
    }
    session.checkObjectFormat();
    return session;
  }

  private checkObjectFormat(): void {
    const format = findCapability(this.capabilities, 'object-format')?.value;
    if (format !== undefined && format !== 'sha1') {
      throw new GitError('client', 'unsupported', `${this.conn.name} uses object format ${format}; tsgit supports only sha1 repositories`);
    }
  }

  has(capability: string): boolean {
    return hasCapability(this.capabilities, capability);
  }

  /** Features of a v2 command (`fetch=shallow filter`), empty for v0. */
  features(command: string): string[] {
    return this.version === 2 ? commandFeatures(this.capabilities, command) ?? [] : [];
  }

  /** Capability lines every v2 command request carries, as git sends them. */
  requestCapabilities(): Capability[] {
    const caps: Capability[] = [];
    if (this.has('agent')) caps.push({ name: 'agent', value: AGENT });
    if (this.has('object-format')) caps.push({ name: 'object-format', value: 'sha1' });
    if (this.serverOptions.length > 0 && !this.has('server-option')) {
      throw new GitError('client', 'unsupported', "server doesn't support 'server-option'");
    }
    for (const value of this.serverOptions) caps.push({ name: 'server-option', value });
    return caps;
  }

  async listRefs(options: ListRefsOptions = {}): Promise<RemoteRef[]> {
    const prefixes = options.prefixes ?? [];
    if (this.version !== 2) return this.advertisedRefs(prefixes);
    if (commandFeatures(this.capabilities, 'ls-refs') === null) {
      throw new GitError('client', 'unsupported', `${this.conn.name}: the server speaks protocol v2 but offers no ls-refs`);
    }
    const args = formatLsRefsArgs({
      symrefs: true, peel: true, refPrefixes: [...prefixes],
      unborn: options.unborn === true && this.features('ls-refs').includes('unborn'),
    });
    const reader = await this.conn.send(formatCommandRequest('ls-refs', this.requestCapabilities(), args));
    const refs = await readLsRefsResponse(reader);
    return refs.map((r) => ({ ...r }));
  }

  /** The v0 advertisement as ls-refs would answer it: HEAD's symref comes from the capability. */
  private advertisedRefs(prefixes: readonly string[]): RemoteRef[] {
    const symrefs = new Map<string, string>();
    for (const value of capabilityValues(this.capabilities, 'symref')) {
      const colon = value.indexOf(':');
      if (colon > 0) symrefs.set(value.slice(0, colon), value.slice(colon + 1));
    }
    const wanted = (name: string) => prefixes.length === 0 || prefixes.some((p) => name.startsWith(p));
    return this.v0Refs.filter((r) => wanted(r.name)).map((r) => {
      const target = symrefs.get(r.name);
      return {
        name: r.name, oid: r.oid,
        ...(target !== undefined ? { symrefTarget: target } : {}),
        ...(r.peeled !== undefined ? { peeled: r.peeled } : {}),
      };
    });
  }

  /** Hangs up politely: v0 wants a flush when we want nothing; v2 a flush ends the session. */
  async close(sayGoodbye = true): Promise<void> {
    if (sayGoodbye && !this.conn.stateless) await this.conn.send(FLUSH_PKT).catch(() => {});
    await this.conn.close();
  }

  abort(): void {
    this.conn.abort();
  }
}

/**
 * The far end's first packet, past smart HTTP's service header, left unread. A far end that hangs
 * up before it may have refused us or have no such repository (its own stderr, already passed
 * on, says which), and git says so in the words of its die_initial_contact.
 */
export async function firstPacket(source: PacketSource, service: string): Promise<Packet> {
  let first: Packet | null;
  try {
    await readServiceHeader(source, service);
    first = await source.peek();
  } catch (e) {
    if (e instanceof GitError && e.code === 'remote-hung-up') throw couldNotRead(e);
    throw e;
  }
  if (first === null) throw couldNotRead(null);
  return first;
}

function couldNotRead(cause: unknown): GitError {
  return new GitError('transport', 'remote-hung-up',
    'Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.', { cause });
}
