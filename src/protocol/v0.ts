// Protocol v0/v1 messages of upload-pack (gitprotocol-pack, gitprotocol-http), both directions:
//   server: advertisement -> read wants (+ shallow/deepen/filter) -> [shallow update]
//           -> read haves per round, answer ACK/NAK -> pack
//   client: read advertisement -> send wants -> [read shallow update] -> send haves, read ACK/NAK
import { CorruptError, GitError } from '../core/errors.js';
import { ZERO_HEX } from '../core/oid.js';
import { formatCapabilityList, hasCapability, parseCapabilityList, splitAtNul, type Capability } from './capabilities.js';
import { FLUSH_PKT, pktLine, type PacketSource } from './pkt-line.js';
import { formatHistoryLines, HistoryLines, type HistoryRequest } from './history-lines.js';
import {
  at, checkName, checkOid, DEFAULT_REQUEST_LIMITS, limitError, parseName, parseOid, readRequired,
  requireLine, throwIfErr, type RequestLimits,
} from './text.js';

export interface AdvertisedRef {
  readonly name: string;
  readonly oid: string;
  /** What an annotated tag points at, sent as `<oid> <name>^{}`. */
  readonly peeled?: string;
}

export interface AdvertisementOptions {
  /** Smart HTTP: start with `# service=<service>` and a flush. */
  readonly service?: string;
  /** The client asked for version=1: say `version 1` first. */
  readonly version1?: boolean;
  /** The server's own shallow boundary. */
  readonly shallows?: readonly string[];
}

/** `# service=git-upload-pack` and a flush: the preamble of a smart HTTP info/refs response. */
export function formatServiceHeader(service: string): Buffer {
  return Buffer.concat([pktLine(`# service=${checkName(service, 'service')}\n`), FLUSH_PKT]);
}

/**
 * The ref advertisement, refs in the caller's order (HEAD first, then sorted by name). An empty
 * repository is advertised as `capabilities^{}` with the zero id, so the capabilities still go out.
 */
export function formatRefAdvertisement(refs: readonly AdvertisedRef[], capabilities: readonly Capability[],
  options: AdvertisementOptions = {}): Buffer {
  const caps = formatCapabilityList(capabilities);
  const out: Buffer[] = [];
  if (options.service !== undefined) out.push(formatServiceHeader(options.service));
  if (options.version1) out.push(pktLine('version 1\n'));
  if (refs.length === 0) out.push(pktLine(`${ZERO_HEX} capabilities^{}\0${caps}\n`));
  refs.forEach((ref, i) => {
    const line = `${checkOid(ref.oid, `ref ${ref.name}`)} ${checkName(ref.name, 'ref name')}`;
    out.push(pktLine(i === 0 ? `${line}\0${caps}\n` : `${line}\n`));
    if (ref.peeled !== undefined) out.push(pktLine(`${checkOid(ref.peeled, `peeled ${ref.name}`)} ${ref.name}^{}\n`));
  });
  for (const oid of options.shallows ?? []) out.push(pktLine(`shallow ${checkOid(oid, 'shallow')}\n`));
  out.push(FLUSH_PKT);
  return Buffer.concat(out);
}

/**
 * Consumes a smart HTTP `# service=...` line and its flush if the response starts with one.
 * Returns whether it was there; git's http-backend leaves it out when it answers in v2.
 */
export async function readServiceHeader(source: PacketSource, service: string): Promise<boolean> {
  const p = await source.peek();
  if (!p || p.type !== 'data' || !p.payload.subarray(0, 10).equals(Buffer.from('# service='))) return false;
  await source.read();
  const line = requireLine(source, p, 'service line');
  if (line !== `# service=${service}`) {
    throw new CorruptError('protocol', `${at(source, p)}: expected "# service=${service}", got ${JSON.stringify(line)}`);
  }
  const flush = await readRequired(source, 'flush after the service line');
  if (flush.type !== 'flush') throw new CorruptError('protocol', `${at(source, flush)}: expected a flush after the service line`);
  return true;
}

export interface RefAdvertisement {
  readonly version: 0 | 1;
  readonly refs: AdvertisedRef[];
  readonly capabilities: Capability[];
  readonly shallows: string[];
}

/** The client's reading of a v0/v1 advertisement, up to and including its flush. */
export async function readRefAdvertisement(source: PacketSource): Promise<RefAdvertisement> {
  let version: 0 | 1 = 0;
  let p = await readRequired(source, 'ref advertisement');
  if (p.type === 'data') {
    const text = requireLine(source, p, 'ref advertisement');
    if (text === 'version 2') {
      throw new GitError('protocol', 'version-mismatch', `${at(source, p)}: server speaks protocol v2; read its capabilities with readV2CapabilityAdvertisement`);
    }
    if (text === 'version 1') {
      version = 1;
      p = await readRequired(source, 'ref advertisement');
    }
  }
  const refs: AdvertisedRef[] = [];
  const shallows: string[] = [];
  let capabilities: Capability[] = [];
  let empty = false;
  for (let first = true; p.type !== 'flush'; first = false, p = await readRequired(source, 'flush ending the ref advertisement')) {
    const where = at(source, p);
    const text = requireLine(source, p, 'ref line');
    throwIfErr(text, where);
    const { ref: line, capabilities: capText } = splitAtNul(text);
    if (capText !== null) {
      if (!first) throw new CorruptError('protocol', `${where}: capabilities after the first ref: ${JSON.stringify(text)}`);
      capabilities = parseCapabilityList(capText, where);
      // Another hash's ids do not fit what follows: say so, before a line fails to parse as one of ours.
      const format = capabilities.find((c) => c.name === 'object-format')?.value;
      if (format !== undefined && format !== 'sha1') {
        throw new GitError('protocol', 'unsupported', `${where}: the remote repository uses object format ${format}; tsgit supports only sha1 repositories`);
      }
    }
    if (line.startsWith('shallow ')) {
      shallows.push(parseOid(line.slice(8), where));
      continue;
    }
    if (shallows.length > 0 || empty || line.charCodeAt(40) !== 0x20) {
      throw new CorruptError('protocol', `${where}: unexpected line in ref advertisement: ${JSON.stringify(text)}`);
    }
    const oid = parseOid(line.slice(0, 40), where);
    const name = parseName(line.slice(41), 'ref name', where);
    if (name === 'capabilities^{}') {
      if (!first || oid !== ZERO_HEX) throw new CorruptError('protocol', `${where}: misplaced capabilities^{} line`);
      empty = true;
    } else if (name.endsWith('^{}')) {
      const prev = refs[refs.length - 1];
      if (!prev || prev.peeled !== undefined || `${prev.name}^{}` !== name) {
        throw new CorruptError('protocol', `${where}: peeled line ${JSON.stringify(name)} does not follow its ref`);
      }
      refs[refs.length - 1] = { ...prev, peeled: oid };
    } else {
      refs.push({ name, oid });
    }
  }
  return { version, refs, capabilities, shallows };
}

export interface UploadRequest extends HistoryRequest {
  /** In the client's order, duplicates kept. */
  readonly wants: string[];
  /** What the client asked for on its first want line (deepen-relative among them, in v0). */
  readonly capabilities: Capability[];
}

/**
 * The server's reading of the want list up to its flush. Null when the client sends only a flush
 * (or hangs up) instead: it wants nothing (ls-remote, or already up to date).
 */
export async function readUploadRequest(source: PacketSource, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): Promise<UploadRequest | null> {
  let p = await source.read();
  if (!p || p.type === 'flush') return null;
  const wants: string[] = [];
  const history = new HistoryLines(limits);
  let capabilities: Capability[] = [];
  while (p.type !== 'flush') {
    const where = at(source, p);
    const line = requireLine(source, p, 'want, shallow, deepen or filter line');
    const sp = line.indexOf(' ');
    const command = sp < 0 ? line : line.slice(0, sp);
    const arg = sp < 0 ? '' : line.slice(sp + 1);
    if (command === 'want') {
      if (wants.length >= limits.maxWants) throw limitError(where, 'want lines', limits.maxWants);
      const extra = arg.slice(40);
      if (extra !== '') {
        if (wants.length > 0 || extra[0] !== ' ') throw new CorruptError('protocol', `${where}: malformed want line ${JSON.stringify(line)}`);
        capabilities = parseCapabilityList(extra.slice(1), where);
        if (capabilities.length > limits.maxOther) throw limitError(where, 'capabilities', limits.maxOther);
      }
      wants.push(parseOid(arg.slice(0, 40), where));
    } else {
      // In v0 a filter line needs the capability asked for on the first want line.
      if (command === 'filter' && !hasCapability(capabilities, 'filter')) {
        throw new CorruptError('protocol', `${where}: filter line without the filter capability`);
      }
      if (!history.take(command, arg, where)) {
        throw new CorruptError('protocol', `${where}: unexpected line in upload-request: ${JSON.stringify(line)}`);
      }
    }
    p = await readRequired(source, 'flush ending the want list');
  }
  const where = at(source, p);
  if (wants.length === 0) throw new CorruptError('protocol', `${where}: upload-request without a want line`);
  if (hasCapability(capabilities, 'side-band') && hasCapability(capabilities, 'side-band-64k')) {
    throw new CorruptError('protocol', `${where}: client asked for both side-band and side-band-64k`);
  }
  history.deepenRelative = hasCapability(capabilities, 'deepen-relative');
  return { wants, capabilities, ...history.finish(where) };
}

export interface HaveRound {
  readonly haves: string[];
  /** True when the round ended with `done`, false when it ended with a flush. */
  readonly done: boolean;
}

/** One negotiation round: have lines up to a flush (answer and wait for more) or `done`. */
export async function readHaves(source: PacketSource, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): Promise<HaveRound> {
  const haves: string[] = [];
  for (;;) {
    const p = await readRequired(source, 'have, done or flush');
    if (p.type === 'flush') return { haves, done: false };
    const where = at(source, p);
    const line = requireLine(source, p, 'have, done or flush');
    if (line === 'done') return { haves, done: true };
    if (!line.startsWith('have ')) throw new CorruptError('protocol', `${where}: expected have, done or flush, got ${JSON.stringify(line)}`);
    if (haves.length >= limits.maxHaves) throw limitError(where, 'have lines', limits.maxHaves);
    haves.push(parseOid(line.slice(5), where));
  }
}

export type AckStatus = 'continue' | 'common' | 'ready';

export function formatAck(oid: string, status?: AckStatus): Buffer {
  return pktLine(`ACK ${checkOid(oid, 'ACK')}${status ? ` ${status}` : ''}\n`);
}

export function formatNak(): Buffer {
  return pktLine('NAK\n');
}

export function formatShallow(oid: string): Buffer {
  return pktLine(`shallow ${checkOid(oid, 'shallow')}\n`);
}

export function formatUnshallow(oid: string): Buffer {
  return pktLine(`unshallow ${checkOid(oid, 'unshallow')}\n`);
}

/**
 * A fatal error in place of any pkt-line, before side-band is in effect. Without a trailing LF, as
 * git writes it (packet_writer_error, daemon_error): a client that prints the packet whole shows
 * no stray newline.
 */
export function formatErr(message: string): Buffer {
  return pktLine(`ERR ${message.replace(/\n/g, ' ')}`);
}

export type UploadRequestInput = Pick<UploadRequest, 'wants' | 'capabilities'> & Partial<HistoryRequest>;

/**
 * The client's want list and its flush, in the order git's fetch-pack writes it. The shape's
 * deepenRelative is not written here: it is one of the `capabilities`.
 */
export function formatUploadRequest(req: UploadRequestInput): Buffer {
  if (req.wants.length === 0) throw new GitError('protocol', 'invalid-argument', 'an upload-request needs at least one want');
  const caps = formatCapabilityList(req.capabilities);
  const out = req.wants.map((oid, i) => pktLine(`want ${checkOid(oid, 'want')}${i === 0 && caps ? ` ${caps}` : ''}\n`));
  for (const line of formatHistoryLines(req, false)) out.push(pktLine(`${line}\n`));
  out.push(FLUSH_PKT);
  return Buffer.concat(out);
}

/** One round of haves, closed by a flush (more rounds follow) or by `done`. */
export function formatHaves(haves: readonly string[], end: 'flush' | 'done'): Buffer {
  const out = haves.map((oid) => pktLine(`have ${checkOid(oid, 'have')}\n`));
  out.push(end === 'done' ? pktLine('done\n') : FLUSH_PKT);
  return Buffer.concat(out);
}

export type AckLine =
  | { readonly kind: 'nak' }
  | { readonly kind: 'ack'; readonly oid: string; readonly status: AckStatus | null };

/** The client's reading of one ACK or NAK line. */
export async function readAck(source: PacketSource): Promise<AckLine> {
  const p = await readRequired(source, 'ACK or NAK');
  const where = at(source, p);
  const line = requireLine(source, p, 'ACK or NAK');
  throwIfErr(line, where);
  if (line === 'NAK') return { kind: 'nak' };
  const m = /^ACK ([0-9a-fA-F]{40})(?: (continue|common|ready))?$/.exec(line);
  if (!m) throw new CorruptError('protocol', `${where}: expected ACK or NAK, got ${JSON.stringify(line)}`);
  return { kind: 'ack', oid: parseOid(m[1]!, where), status: (m[2] as AckStatus | undefined) ?? null };
}

/** The client's reading of the server's shallow/unshallow lines after a deepen request. */
export async function readShallowUpdate(source: PacketSource): Promise<{ shallows: string[]; unshallows: string[] }> {
  const shallows: string[] = [];
  const unshallows: string[] = [];
  for (;;) {
    const p = await readRequired(source, 'shallow, unshallow or flush');
    if (p.type === 'flush') return { shallows, unshallows };
    const where = at(source, p);
    const line = requireLine(source, p, 'shallow, unshallow or flush');
    throwIfErr(line, where);
    if (line.startsWith('shallow ')) shallows.push(parseOid(line.slice(8), where));
    else if (line.startsWith('unshallow ')) unshallows.push(parseOid(line.slice(10), where));
    else throw new CorruptError('protocol', `${where}: expected shallow or unshallow, got ${JSON.stringify(line)}`);
  }
}
