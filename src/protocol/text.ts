// Text helpers shared by the message parsers: decoding a line, checking the ids and names in it,
// and turning the peer's "ERR" packets into errors. Ids are 40-character lower-case hex strings at
// this layer because they arrive and leave as text.
import { isAscii } from 'node:buffer';
import { CorruptError, GitError } from '../core/errors.js';
import { isHexOid } from '../core/oid.js';
import { stripLf, type Packet, type PacketSource } from './pkt-line.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Where a packet came from, for error messages. */
export function at(source: PacketSource | string, packet: Packet | null): string {
  const name = typeof source === 'string' ? source : source.source;
  return packet ? `${name} at offset ${packet.offset}` : `${name} at end of input`;
}

/** The packet's text without its trailing LF; rejects bytes that are not UTF-8. */
export function lineText(payload: Buffer, where: string): string {
  const line = stripLf(payload);
  // Native checks, not a loop over bytes: a fresh process reads a whole ref advertisement (or a
  // fetch's haves) before its JIT has warmed up, and a loop per byte cost 6-15 ms of 1,675 refs.
  if (isAscii(line)) return line.toString('latin1');
  try {
    return utf8.decode(line);
  } catch {
    throw new CorruptError('protocol', `${where}: line is not valid UTF-8: ${JSON.stringify(line.toString('latin1'))}`);
  }
}

/** A 40-hex id from the peer, accepted in either case (the protocol says so) and lower-cased. */
export function parseOid(text: string, where: string): string {
  if (!isHexOid(text)) throw new CorruptError('protocol', `${where}: expected a 40-hex object id, got ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

const LOWER_HEX_OID = /^[0-9a-f]{40}$/;

/** Ids we are about to send must already be canonical. */
export function checkOid(oid: string, what: string): string {
  if (!LOWER_HEX_OID.test(oid)) throw new GitError('protocol', 'invalid-argument', `${what}: ${JSON.stringify(oid)} is not a 40-character lower-case hex id`);
  return oid;
}

/** Names travel space-separated in one line, so a space, NUL, LF or other control byte breaks framing. */
export function hasControlOrSpace(name: string): boolean {
  return CONTROL_OR_SPACE.test(name);
}

const CONTROL_OR_SPACE = /[\x00-\x20\x7f]/;

export function parseName(text: string, what: string, where: string): string {
  if (text.length === 0 || hasControlOrSpace(text)) {
    throw new CorruptError('protocol', `${where}: invalid ${what} ${JSON.stringify(text)}`);
  }
  return text;
}

export function checkName(name: string, what: string): string {
  if (name.length === 0 || hasControlOrSpace(name)) {
    throw new GitError('protocol', 'invalid-argument', `${what} ${JSON.stringify(name)} is empty or contains a space or control character`);
  }
  return name;
}

/** A non-negative decimal integer, as used by deepen and deepen-since. */
export function parseDecimal(text: string, what: string, where: string): number {
  if (!/^[0-9]{1,15}$/.test(text)) throw new CorruptError('protocol', `${where}: invalid ${what} ${JSON.stringify(text)}`);
  return Number(text);
}

/** A server or client may send "ERR <message>" wherever a pkt-line is expected. */
export function throwIfErr(text: string, where: string): void {
  if (text.startsWith('ERR ')) {
    throw new GitError('protocol', 'remote-error', `remote error: ${text.slice(4)} (${where})`);
  }
}

/** Reads a packet where the grammar requires one; end of input here means the peer hung up. */
export async function readRequired(source: PacketSource, expecting: string): Promise<Packet> {
  const p = await source.read();
  if (!p) throw new CorruptError('protocol', `${source.source}: stream ended while expecting ${expecting}`);
  return p;
}

/** The text of a data packet; flush, delim, response-end or an empty packet are errors here. */
export function requireLine(source: PacketSource, p: Packet, expecting: string): string {
  if (p.type !== 'data') throw new CorruptError('protocol', `${at(source, p)}: expected ${expecting}, got a ${p.type} packet`);
  if (p.payload.length === 0) throw new CorruptError('protocol', `${at(source, p)}: expected ${expecting}, got an empty pkt-line (0004)`);
  return lineText(p.payload, at(source, p));
}

export interface RequestLimits {
  /** want and want-ref lines in one request. */
  maxWants: number;
  /** have lines in one request (v2) or one negotiation round (v0). */
  maxHaves: number;
  /** shallow lines in one request. */
  maxShallows: number;
  /** Everything else that repeats: capabilities, deepen-not, ref-prefix, server options. */
  maxOther: number;
}

export const DEFAULT_REQUEST_LIMITS: Readonly<RequestLimits> = Object.freeze({
  maxWants: 100_000,
  maxHaves: 100_000,
  maxShallows: 100_000,
  maxOther: 10_000,
});

export function limitError(where: string, what: string, max: number): GitError {
  return new GitError('protocol', 'limit-exceeded', `${where}: more than ${max} ${what} in one request`);
}
