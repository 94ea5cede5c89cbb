// Protocol v0/v1 messages of a push (gitprotocol-pack "Pushing Data To a Server"), both directions:
//   server: advertisement (v0.ts's formatRefAdvertisement) -> read update commands, the first
//           carrying capabilities after a NUL, optional shallow lines, flush -> [push options,
//           flush] -> pack (unless every command is a deletion) -> report-status
//   client: the same, mirrored.
// report-status (and its v2, which may add "option" lines after an "ok") is a list of pkt-lines:
// "unpack ok|<error>", then "ok <ref>" or "ng <ref> <reason>" for every command, then a flush.
// Ref names are not judged here (the server's update rules do that); they only must not break the
// line's framing.
import { CorruptError, GitError } from '../core/errors.js';
import { ZERO_HEX } from '../core/oid.js';
import { formatCapabilityList, parseCapabilityList, type Capability } from './capabilities.js';
import { FLUSH_PKT, pktLine, type PacketSource } from './pkt-line.js';
import {
  at, checkName, checkOid, DEFAULT_REQUEST_LIMITS, limitError, parseOid, readRequired, requireLine, throwIfErr,
  type RequestLimits,
} from './text.js';

export interface PushCommand {
  /** What the client believes the ref holds now; the zero id when it creates the ref. */
  readonly oldOid: string;
  /** What it should hold; the zero id deletes it. */
  readonly newOid: string;
  readonly name: string;
}

export interface PushRequest {
  readonly commands: PushCommand[];
  /** From the first command line. */
  readonly capabilities: Capability[];
  /** The client's shallow boundary (a push from a shallow clone). */
  readonly shallows: string[];
}

export function isDeletion(cmd: PushCommand): boolean {
  return cmd.newOid === ZERO_HEX;
}

/**
 * The server's reading of the commands up to their flush. Null when the client sends only a flush
 * (or hangs up): it has nothing to push. A push certificate (`push-cert`) is refused: tsgit does
 * not advertise the capability, so a client sends one only against the protocol.
 */
export async function readPushRequest(source: PacketSource, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): Promise<PushRequest | null> {
  let p = await source.read();
  if (!p || p.type === 'flush') return null;
  const commands: PushCommand[] = [];
  const shallows: string[] = [];
  let capabilities: Capability[] = [];
  for (; p.type !== 'flush'; p = await readRequired(source, 'flush ending the update commands')) {
    const where = at(source, p);
    if (p.type !== 'data' || p.payload.length === 0) throw new CorruptError('protocol', `${where}: expected an update command, got ${p.type === 'data' ? 'an empty pkt-line' : `a ${p.type} packet`}`);
    const nul = p.payload.indexOf(0);
    const line = requireLine(source, nul < 0 ? p : { ...p, payload: p.payload.subarray(0, nul) }, 'update command');
    if (nul >= 0) {
      // The shallow lines come first; the capabilities ride on the first command (gitprotocol-pack).
      if (commands.length > 0) throw new CorruptError('protocol', `${where}: capabilities after the first command`);
      const text = requireLine(source, { ...p, payload: p.payload.subarray(nul + 1) }, 'capability list');
      capabilities = parseCapabilityList(text, where);
      if (capabilities.length > limits.maxOther) throw limitError(where, 'capabilities', limits.maxOther);
    }
    if (line.startsWith('shallow ')) {
      if (commands.length > 0) throw new CorruptError('protocol', `${where}: shallow line after the update commands`);
      if (shallows.length >= limits.maxShallows) throw limitError(where, 'shallow lines', limits.maxShallows);
      shallows.push(parseOid(line.slice(8), where));
      continue;
    }
    if (line === 'push-cert') {
      throw new GitError('protocol', 'unsupported', `${where}: signed pushes (push-cert) are not supported by this server`);
    }
    if (commands.length >= limits.maxWants) throw limitError(where, 'update commands', limits.maxWants);
    const m = /^([0-9a-fA-F]{40}) ([0-9a-fA-F]{40}) (.+)$/s.exec(line);
    if (!m || /[\0\n]/.test(m[3]!)) throw new CorruptError('protocol', `${where}: protocol error: expected old/new/ref, got ${JSON.stringify(line)}`);
    commands.push({ oldOid: m[1]!.toLowerCase(), newOid: m[2]!.toLowerCase(), name: m[3]! });
  }
  if (commands.length === 0) throw new CorruptError('protocol', `${at(source, p)}: shallow lines without any update command`);
  return { commands, capabilities, shallows };
}

/** The push options after the commands: one per pkt-line, up to a flush. */
export async function readPushOptions(source: PacketSource, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): Promise<string[]> {
  const options: string[] = [];
  for (let p = await readRequired(source, 'push option or flush'); p.type !== 'flush'; p = await readRequired(source, 'push option or flush')) {
    const where = at(source, p);
    if (options.length >= limits.maxOther) throw limitError(where, 'push options', limits.maxOther);
    const text = requireLine(source, p, 'push option');
    if (text.includes('\n') || text.includes('\0')) throw new CorruptError('protocol', `${where}: push option with a newline or NUL: ${JSON.stringify(text)}`);
    options.push(text);
  }
  return options;
}

/** The client's commands, capabilities on the first, then a flush (git's send-pack order). */
export function formatPushRequest(commands: readonly PushCommand[], capabilities: readonly Capability[],
  shallows: readonly string[] = []): Buffer {
  if (commands.length === 0) throw new GitError('protocol', 'invalid-argument', 'a push request needs at least one command');
  const caps = formatCapabilityList(capabilities);
  const out: Buffer[] = shallows.map((oid) => pktLine(`shallow ${checkOid(oid, 'shallow')}`));
  commands.forEach((c, i) => {
    const line = `${checkOid(c.oldOid, `old value of ${c.name}`)} ${checkOid(c.newOid, `new value of ${c.name}`)} ${checkName(c.name, 'ref name')}`;
    out.push(i === 0 ? pktLine(`${line}\0${caps}`) : pktLine(line));
  });
  out.push(FLUSH_PKT);
  return Buffer.concat(out);
}

export function formatPushOptions(options: readonly string[]): Buffer {
  for (const o of options) {
    if (/[\0\n]/.test(o)) throw new GitError('protocol', 'invalid-argument', `push options must not contain a newline or NUL: ${JSON.stringify(o)}`);
  }
  return Buffer.concat([...options.map((o) => pktLine(o)), FLUSH_PKT]);
}

export interface RefStatus {
  readonly name: string;
  /** null when the update went through; else the reason the server gives. */
  readonly error: string | null;
  /** report-status-v2 `option` lines after an "ok" (refname, old-oid, new-oid, forced-update). */
  readonly options?: readonly string[];
}

export interface StatusReport {
  /** null for "unpack ok", else the unpacker's error. */
  readonly unpackError: string | null;
  readonly refs: RefStatus[];
}

/** report-status (or -v2: the same lines here, since tsgit never rewrites what a ref becomes). */
export function formatStatusReport(report: StatusReport): Buffer {
  const line = (text: string) => pktLine(`${text.replace(/\n/g, ' ')}\n`);
  const out = [line(`unpack ${report.unpackError ?? 'ok'}`)];
  for (const r of report.refs) {
    out.push(line(r.error === null ? `ok ${r.name}` : `ng ${r.name} ${r.error}`));
    for (const o of r.error === null ? r.options ?? [] : []) out.push(line(`option ${o}`));
  }
  out.push(FLUSH_PKT);
  return Buffer.concat(out);
}

/** The client's reading of report-status (v1 or v2) up to its flush. */
export async function readStatusReport(source: PacketSource): Promise<StatusReport> {
  const first = await readRequired(source, 'unpack status');
  const firstLine = requireLine(source, first, 'unpack status');
  throwIfErr(firstLine, at(source, first));
  if (!firstLine.startsWith('unpack ')) {
    throw new CorruptError('protocol', `${at(source, first)}: unable to parse remote unpack status: ${JSON.stringify(firstLine)}`);
  }
  const status = firstLine.slice(7);
  const refs: { name: string; error: string | null; options: string[] }[] = [];
  for (let p = await readRequired(source, 'ref status or flush'); p.type !== 'flush'; p = await readRequired(source, 'ref status or flush')) {
    const where = at(source, p);
    const line = requireLine(source, p, 'ref status');
    throwIfErr(line, where);
    if (line.startsWith('option ')) {
      const last = refs[refs.length - 1];
      if (!last || last.error !== null) throw new CorruptError('protocol', `${where}: 'option' line without a preceding 'ok': ${JSON.stringify(line)}`);
      last.options.push(line.slice(7));
      continue;
    }
    const m = /^(ok|ng) (\S+)(?: (.*))?$/.exec(line);
    if (!m) throw new CorruptError('protocol', `${where}: invalid ref status from remote: ${JSON.stringify(line)}`);
    refs.push({ name: m[2]!, error: m[1] === 'ok' ? null : (m[3] ?? 'failed'), options: [] });
  }
  return { unpackError: status === 'ok' ? null : status, refs };
}
