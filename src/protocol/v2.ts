// Protocol v2 messages (gitprotocol-v2), both directions:
//   server: capability advertisement -> read command request (command, capabilities, delim,
//           arguments, flush) -> ls-refs lines | fetch sections (acknowledgments, shallow-info,
//           wanted-refs, packfile) -> flush
//   client: read capabilities -> send ls-refs -> read refs -> send fetch rounds -> read sections
import { CorruptError, GitError } from '../core/errors.js';
import { formatV2Capability, parseV2Capability, type Capability } from './capabilities.js';
import { DELIM_PKT, FLUSH_PKT, pktLine, type PacketSource } from './pkt-line.js';
import { formatHistoryLines, HistoryLines, type HistoryRequest } from './history-lines.js';
import {
  at, checkName, checkOid, DEFAULT_REQUEST_LIMITS, limitError, parseName, parseOid, readRequired,
  requireLine, throwIfErr, type RequestLimits,
} from './text.js';

/** `version 2`, one line per capability, flush. */
export function formatV2CapabilityAdvertisement(capabilities: readonly Capability[]): Buffer {
  return Buffer.concat([pktLine('version 2\n'), ...capabilities.map((c) => pktLine(`${formatV2Capability(c)}\n`)), FLUSH_PKT]);
}

/** The client's reading of the server's first message when it answers in v2. */
export async function readV2CapabilityAdvertisement(source: PacketSource): Promise<Capability[]> {
  const first = await readRequired(source, 'version 2');
  const text = requireLine(source, first, 'version 2');
  throwIfErr(text, at(source, first));
  if (text !== 'version 2') throw new CorruptError('protocol', `${at(source, first)}: expected "version 2", got ${JSON.stringify(text)}`);
  const caps: Capability[] = [];
  for (let p = await readRequired(source, 'capability or flush'); p.type !== 'flush'; p = await readRequired(source, 'capability or flush')) {
    caps.push(parseV2Capability(requireLine(source, p, 'capability line'), at(source, p)));
  }
  return caps;
}

export interface CommandRequest {
  readonly command: string;
  readonly capabilities: Capability[];
  /** Argument lines, LF stripped, for the command's own parser. */
  readonly args: string[];
}

/**
 * The server's reading of one request. Null when the client sends a lone flush or hangs up: it
 * has no more commands. Arguments are bounded by the sum of `limits` before any command parses them.
 */
export async function readCommandRequest(source: PacketSource, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): Promise<CommandRequest | null> {
  let p = await source.read();
  if (!p || p.type === 'flush') return null;
  let command: string | null = null;
  const capabilities: Capability[] = [];
  for (; p.type !== 'flush' && p.type !== 'delim'; p = await readRequired(source, 'delim or flush ending the capabilities')) {
    const where = at(source, p);
    const line = requireLine(source, p, 'command or capability line');
    if (line.startsWith('command=')) {
      if (command !== null) throw new CorruptError('protocol', `${where}: second command in one request: ${JSON.stringify(line)}`);
      command = parseV2Capability(line.slice(8), where).name;
      if (line.slice(8) !== command) throw new CorruptError('protocol', `${where}: invalid command line ${JSON.stringify(line)}`);
    } else {
      if (capabilities.length >= limits.maxOther) throw limitError(where, 'capability lines', limits.maxOther);
      capabilities.push(parseV2Capability(line, where));
    }
  }
  if (command === null) throw new CorruptError('protocol', `${at(source, p)}: request without a command= line`);
  const args: string[] = [];
  const maxArgs = limits.maxWants + limits.maxHaves + limits.maxShallows + limits.maxOther;
  if (p.type === 'delim') {
    for (p = await readRequired(source, 'argument or flush'); p.type !== 'flush'; p = await readRequired(source, 'argument or flush')) {
      if (args.length >= maxArgs) throw limitError(at(source, p), 'argument lines', maxArgs);
      args.push(requireLine(source, p, 'argument line'));
    }
  }
  return { command, capabilities, args };
}

/** A command request with its flush, as a client sends it. */
export function formatCommandRequest(command: string, capabilities: readonly Capability[], args: readonly string[]): Buffer {
  const out = [pktLine(`command=${formatV2Capability({ name: command })}\n`), ...capabilities.map((c) => pktLine(`${formatV2Capability(c)}\n`))];
  if (args.length > 0) {
    out.push(DELIM_PKT);
    for (const arg of args) {
      if (arg.includes('\n')) throw new GitError('protocol', 'invalid-argument', `argument ${JSON.stringify(arg)} contains a newline`);
      out.push(pktLine(`${arg}\n`));
    }
  }
  out.push(FLUSH_PKT);
  return Buffer.concat(out);
}

function splitArg(line: string): [string, string | null] {
  const sp = line.indexOf(' ');
  return sp < 0 ? [line, null] : [line.slice(0, sp), line.slice(sp + 1)];
}

function unexpected(where: string, command: string, line: string): CorruptError {
  return new CorruptError('protocol', `${where}: unexpected ${command} argument ${JSON.stringify(line)}`);
}

export interface LsRefsRequest {
  readonly peel: boolean;
  readonly symrefs: boolean;
  readonly unborn: boolean;
  /** Empty means every ref. */
  readonly refPrefixes: string[];
}

/**
 * ls-refs arguments. `where` names the request in errors. Past `maxOther` prefixes the client gets
 * every ref, as git's server does: prefixes only narrow the answer, never change its meaning.
 */
export function parseLsRefsArgs(args: readonly string[], where: string, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): LsRefsRequest {
  let peel = false, symrefs = false, unborn = false, tooMany = false;
  let refPrefixes: string[] = [];
  for (const line of args) {
    const [name, value] = splitArg(line);
    if (value === null && name === 'peel') peel = true;
    else if (value === null && name === 'symrefs') symrefs = true;
    else if (value === null && name === 'unborn') unborn = true;
    else if (value !== null && name === 'ref-prefix') {
      if (value === '' || /[\0\n]/.test(value)) throw unexpected(where, 'ls-refs', line);
      if (tooMany) continue;
      if (refPrefixes.length >= limits.maxOther) { refPrefixes = []; tooMany = true; continue; }
      refPrefixes.push(value);
    } else throw unexpected(where, 'ls-refs', line);
  }
  return { peel, symrefs, unborn, refPrefixes };
}

export function formatLsRefsArgs(req: Partial<LsRefsRequest>): string[] {
  const args: string[] = [];
  if (req.peel) args.push('peel');
  if (req.symrefs) args.push('symrefs');
  if (req.unborn) args.push('unborn');
  for (const prefix of req.refPrefixes ?? []) args.push(`ref-prefix ${prefix}`);
  return args;
}

export interface LsRefsRef {
  /** null for an unborn HEAD (`unborn HEAD symref-target:refs/heads/main`). */
  readonly oid: string | null;
  readonly name: string;
  readonly symrefTarget?: string;
  readonly peeled?: string;
}

/** One line of the ls-refs answer (the caller ends the answer with a flush). */
export function formatLsRefsLine(ref: LsRefsRef): Buffer {
  let line = `${ref.oid === null ? 'unborn' : checkOid(ref.oid, `ref ${ref.name}`)} ${checkName(ref.name, 'ref name')}`;
  if (ref.symrefTarget !== undefined) line += ` symref-target:${checkName(ref.symrefTarget, 'symref target')}`;
  if (ref.peeled !== undefined) line += ` peeled:${checkOid(ref.peeled, `peeled ${ref.name}`)}`;
  return pktLine(`${line}\n`);
}

/** The client's reading of an ls-refs answer, up to its flush. */
export async function readLsRefsResponse(source: PacketSource): Promise<LsRefsRef[]> {
  const refs: LsRefsRef[] = [];
  for (let p = await readRequired(source, 'ls-refs line or flush'); p.type !== 'flush'; p = await readRequired(source, 'ls-refs line or flush')) {
    const where = at(source, p);
    const line = requireLine(source, p, 'ls-refs line');
    throwIfErr(line, where);
    const [oidText, ...rest] = line.split(' ');
    if (rest.length === 0) throw new CorruptError('protocol', `${where}: malformed ls-refs line ${JSON.stringify(line)}`);
    const oid = oidText === 'unborn' ? null : parseOid(oidText!, where);
    const ref: { oid: string | null; name: string; symrefTarget?: string; peeled?: string } = { oid, name: parseName(rest[0]!, 'ref name', where) };
    for (const attr of rest.slice(1)) {
      if (attr.startsWith('symref-target:') && ref.symrefTarget === undefined) ref.symrefTarget = parseName(attr.slice(14), 'symref target', where);
      else if (attr.startsWith('peeled:') && ref.peeled === undefined) ref.peeled = parseOid(attr.slice(7), where);
      else throw new CorruptError('protocol', `${where}: unknown ls-refs attribute ${JSON.stringify(attr)}`);
    }
    if (oid === null && ref.symrefTarget === undefined) throw new CorruptError('protocol', `${where}: unborn ref without symref-target`);
    refs.push(ref);
  }
  return refs;
}

export interface FetchRequest extends HistoryRequest {
  readonly wants: string[];
  readonly wantRefs: string[];
  readonly haves: string[];
  readonly done: boolean;
  readonly thinPack: boolean;
  readonly noProgress: boolean;
  readonly includeTag: boolean;
  readonly ofsDelta: boolean;
  readonly waitForDone: boolean;
  readonly sidebandAll: boolean;
}

const FLAGS = {
  'thin-pack': 'thinPack', 'no-progress': 'noProgress', 'include-tag': 'includeTag', 'ofs-delta': 'ofsDelta',
  'wait-for-done': 'waitForDone', 'sideband-all': 'sidebandAll', done: 'done',
} as const;
type Flag = (typeof FLAGS)[keyof typeof FLAGS];

/** fetch arguments. packfile-uris is accepted and ignored: we never send URIs instead of objects. */
export function parseFetchArgs(args: readonly string[], where: string, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): FetchRequest {
  const wants: string[] = [], wantRefs: string[] = [], haves: string[] = [];
  const history = new HistoryLines(limits);
  const flags: Record<Flag, boolean> = {
    thinPack: false, noProgress: false, includeTag: false, ofsDelta: false, waitForDone: false, sidebandAll: false, done: false,
  };
  let packfileUris = false;
  for (const line of args) {
    const [name, value] = splitArg(line);
    if (value === null) {
      // The one history line without a value, kept with the others.
      if (name === 'deepen-relative') {
        history.deepenRelative = true;
        continue;
      }
      if (!Object.hasOwn(FLAGS, name)) throw unexpected(where, 'fetch', line);
      flags[FLAGS[name as keyof typeof FLAGS]] = true;
      continue;
    }
    switch (name) {
      case 'want':
        if (wants.length + wantRefs.length >= limits.maxWants) throw limitError(where, 'want lines', limits.maxWants);
        wants.push(parseOid(value, where));
        break;
      case 'want-ref':
        if (wants.length + wantRefs.length >= limits.maxWants) throw limitError(where, 'want lines', limits.maxWants);
        if (wantRefs.includes(value)) throw new CorruptError('protocol', `${where}: want-ref ${JSON.stringify(value)} sent twice`);
        wantRefs.push(parseName(value, 'want-ref', where));
        break;
      case 'have':
        if (haves.length >= limits.maxHaves) throw limitError(where, 'have lines', limits.maxHaves);
        haves.push(parseOid(value, where));
        break;
      case 'packfile-uris':
        if (packfileUris) throw new CorruptError('protocol', `${where}: more than one packfile-uris line`);
        packfileUris = true;
        break;
      default:
        if (!history.take(name, value, where)) throw unexpected(where, 'fetch', line);
    }
  }
  return { wants, wantRefs, haves, ...history.finish(where), ...flags };
}

export type FetchRequestInput = Partial<FetchRequest>;

/** fetch arguments in the order git's fetch-pack sends them. */
export function formatFetchArgs(req: FetchRequestInput): string[] {
  const args: string[] = [];
  if (req.thinPack) args.push('thin-pack');
  if (req.noProgress) args.push('no-progress');
  if (req.includeTag) args.push('include-tag');
  if (req.ofsDelta) args.push('ofs-delta');
  if (req.sidebandAll) args.push('sideband-all');
  args.push(...formatHistoryLines(req, true));
  for (const oid of req.wants ?? []) args.push(`want ${checkOid(oid, 'want')}`);
  for (const ref of req.wantRefs ?? []) args.push(`want-ref ${checkName(ref, 'want-ref')}`);
  if (req.waitForDone) args.push('wait-for-done');
  for (const oid of req.haves ?? []) args.push(`have ${checkOid(oid, 'have')}`);
  if (req.done) args.push('done');
  return args;
}

/**
 * The acknowledgments section. NAK when nothing was common; `ready` means the packfile follows in
 * this response, so the caller ends the section with a delim (else with a flush and awaits more).
 */
export function formatAcknowledgments(commonOids: readonly string[], ready: boolean): Buffer {
  const out = [pktLine('acknowledgments\n')];
  if (commonOids.length === 0) out.push(pktLine('NAK\n'));
  for (const oid of commonOids) out.push(pktLine(`ACK ${checkOid(oid, 'ACK')}\n`));
  if (ready) out.push(pktLine('ready\n'));
  return Buffer.concat(out);
}

/** The shallow-info section (the caller ends it with a delim). */
export function formatShallowInfo(shallows: readonly string[], unshallows: readonly string[]): Buffer {
  return Buffer.concat([
    pktLine('shallow-info\n'),
    ...shallows.map((oid) => pktLine(`shallow ${checkOid(oid, 'shallow')}\n`)),
    ...unshallows.map((oid) => pktLine(`unshallow ${checkOid(oid, 'unshallow')}\n`)),
  ]);
}

/** The wanted-refs section (the caller ends it with a delim). */
export function formatWantedRefs(refs: readonly { oid: string; name: string }[]): Buffer {
  return Buffer.concat([
    pktLine('wanted-refs\n'),
    ...refs.map((r) => pktLine(`${checkOid(r.oid, `wanted ref ${r.name}`)} ${checkName(r.name, 'wanted ref')}\n`)),
  ]);
}

/** The packfile section header; side-band-64k pack packets and a flush follow. */
export function formatPackfileHeader(): Buffer {
  return pktLine('packfile\n');
}

export interface FetchResponse {
  readonly acks: string[];
  readonly nak: boolean;
  readonly ready: boolean;
  readonly shallows: string[];
  readonly unshallows: string[];
  readonly wantedRefs: { oid: string; name: string }[];
  /** True when the packfile section has begun: demultiplex the pack from the same source next. */
  readonly packfile: boolean;
}

const SECTIONS = ['acknowledgments', 'shallow-info', 'wanted-refs', 'packfile'] as const;

/**
 * The client's reading of a fetch response, up to the packfile header (pack data follows on the
 * same source) or the flush ending a negotiation round without a pack.
 */
export async function readFetchResponse(source: PacketSource): Promise<FetchResponse> {
  const res = { acks: [] as string[], nak: false, ready: false, shallows: [] as string[], unshallows: [] as string[], wantedRefs: [] as { oid: string; name: string }[], packfile: false };
  let sectionIndex = -1;
  let p = await readRequired(source, 'fetch response section');
  for (;;) {
    const where = at(source, p);
    const header = requireLine(source, p, 'section header');
    throwIfErr(header, where);
    const index = SECTIONS.indexOf(header as (typeof SECTIONS)[number]);
    if (index <= sectionIndex) {
      throw new CorruptError('protocol', `${where}: unexpected section ${JSON.stringify(header)} in fetch response`);
    }
    sectionIndex = index;
    if (header === 'packfile') return { ...res, packfile: true };
    for (p = await readRequired(source, `${header} line`); p.type === 'data'; p = await readRequired(source, `${header} line`)) {
      const lineWhere = at(source, p);
      const line = requireLine(source, p, `${header} line`);
      throwIfErr(line, lineWhere);
      if (!readSectionLine(header, line, lineWhere, res)) {
        throw new CorruptError('protocol', `${lineWhere}: unexpected line in ${header} section: ${JSON.stringify(line)}`);
      }
    }
    if (header === 'acknowledgments' && res.nak && res.acks.length > 0) {
      throw new CorruptError('protocol', `${where}: acknowledgments hold both ACK and NAK`);
    }
    if (p.type === 'flush') {
      if (header !== 'acknowledgments' || res.ready) throw new CorruptError('protocol', `${at(source, p)}: fetch response ended after ${header} without a packfile`);
      return res;
    }
    if (p.type !== 'delim' || (header === 'acknowledgments' && !res.ready)) {
      throw new CorruptError('protocol', `${at(source, p)}: unexpected ${p.type} packet after the ${header} section`);
    }
    p = await readRequired(source, 'fetch response section');
  }
}

function readSectionLine(header: string, line: string, where: string, res: {
  acks: string[]; nak: boolean; ready: boolean; shallows: string[]; unshallows: string[]; wantedRefs: { oid: string; name: string }[];
}): boolean {
  const [name, value] = splitArg(line);
  switch (header) {
    case 'acknowledgments':
      if (line === 'NAK') res.nak = true;
      else if (line === 'ready') res.ready = true;
      else if (name === 'ACK' && value !== null) res.acks.push(parseOid(value, where));
      else return false;
      return true;
    case 'shallow-info':
      if (name === 'shallow' && value !== null) res.shallows.push(parseOid(value, where));
      else if (name === 'unshallow' && value !== null) res.unshallows.push(parseOid(value, where));
      else return false;
      return true;
    case 'wanted-refs':
      if (value === null) return false;
      res.wantedRefs.push({ oid: parseOid(name, where), name: parseName(value, 'wanted ref', where) });
      return true;
    default:
      return false;
  }
}
