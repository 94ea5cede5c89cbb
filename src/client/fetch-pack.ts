// Asking for a pack (git's fetch-pack.c): send wants, negotiate haves in rounds, then hand the
// pack stream to the caller as it arrives.
//
// v2 (do_fetch_pack_v2): every round is a whole `fetch` request carrying the wants, every commit
// known to be common and up to N new haves (16, doubling); the server answers with
// acknowledgments, and once it says "ready" (or we send "done") the packfile follows.
// v0/v1 (find_common): the want list goes once (stateful) or with every request (stateless
// HTTP); haves go in flushed batches (16, then +32 or doubling), reading the server's
// multi_ack_detailed answers one batch behind; with no-done the pack follows "ready" directly.
import { GitError } from '../core/errors.js';
import {
  deepens, demuxSideband, formatCommandRequest, formatFetchArgs, formatUploadRequest, pktLine, readAck, readFetchResponse,
  readShallowUpdate, FLUSH_PKT, NO_DEEPEN, type Capability, type FilterSpec, type HistoryShape, type PacketReader,
} from '../protocol/index.js';
import type { Negotiator } from './negotiator.js';
import { AGENT, type RemoteSession } from './session.js';

const INITIAL_FLUSH = 16;
const PIPESAFE_FLUSH = 32;
const LARGE_FLUSH = 16384;
/** Haves without a new acknowledgment before giving up (git's MAX_IN_VAIN). */
const MAX_IN_VAIN = 256;

export interface FetchPackOptions<T> {
  /** Ids to ask for, hex, without duplicates. */
  readonly wants: readonly string[];
  /** The local history to offer; null when there is none (a clone). */
  readonly negotiator: Negotiator | null;
  /** This repository's shallow boundary (its shallow file). */
  readonly shallows?: readonly string[];
  /** How the fetch moves that boundary; default NO_DEEPEN. */
  readonly shape?: HistoryShape;
  readonly filter?: FilterSpec | null;
  readonly includeTag?: boolean;
  readonly thinPack?: boolean;
  /** Ask the server not to send its progress. */
  readonly noProgress?: boolean;
  /** The server's progress text, in whole lines. */
  readonly onProgress?: (text: string) => void;
  /**
   * Receives the pack bytes as they arrive; the fetch ends when it resolves. `serverBoundary` is
   * the server's own shallow boundary when the server is a shallow repository (see
   * FetchPackResult): the pack stops there, so it is not closed under its references. `deepened`
   * is a deepen's shallow update (FetchPackResult's shallows and unshallows), which also comes
   * before the pack.
   */
  readonly receivePack: (pack: AsyncIterable<Uint8Array>, serverBoundary: readonly string[], deepened: ShallowLines) => Promise<T>;
  /** Warnings git would print (a filter the server ignores). */
  readonly warn?: (message: string) => void;
}

/** A shallow update: commits that become boundary commits, and commits that no longer are. */
export interface ShallowLines {
  readonly shallows: readonly string[];
  readonly unshallows: readonly string[];
}

export interface FetchPackResult<T> {
  readonly pack: T;
  /** New shallow commits and ones no longer shallow, from the server's shallow update. */
  readonly shallows: string[];
  readonly unshallows: string[];
  /**
   * When we did not deepen and the server is itself shallow: its boundary (v0 advertises it, v2
   * sends it as shallow-info unasked), which git's fetch-pack keeps apart from a deepen's lines.
   */
  readonly serverBoundary: string[];
  /** Whether the server applied the filter (so the result is a promisor pack). */
  readonly filtered: boolean;
}

/** git's next_flush: how many haves to send before the next flush. */
export function nextFlush(stateless: boolean, count: number): number {
  if (stateless) return count < LARGE_FLUSH ? count << 1 : Math.floor((count * 11) / 10);
  return count < PIPESAFE_FLUSH ? count << 1 : count + PIPESAFE_FLUSH;
}

function haveLine(oid: string): Buffer {
  return pktLine(`have ${oid}\n`);
}

export async function fetchPack<T>(session: RemoteSession, options: FetchPackOptions<T>): Promise<FetchPackResult<T>> {
  if (options.wants.length === 0) throw new GitError('client', 'invalid-argument', 'fetch-pack needs at least one want');
  const shape = options.shape ?? NO_DEEPEN;
  if ((deepens(shape) || (options.shallows?.length ?? 0) > 0) && !supportsShallow(session)) {
    throw new GitError('client', 'unsupported', `${session.conn.name}: Server does not support shallow clients`);
  }
  return session.version === 2 ? fetchV2(session, options, shape) : fetchV0(session, options, shape);
}

function supportsShallow(session: RemoteSession): boolean {
  return session.version === 2 ? session.features('fetch').includes('shallow') : session.has('shallow');
}

function checkFilter<T>(session: RemoteSession, options: FetchPackOptions<T>): FilterSpec | null {
  if (!options.filter) return null;
  const ok = session.version === 2 ? session.features('fetch').includes('filter') : session.has('filter');
  if (!ok) {
    options.warn?.('filtering not recognized by server, ignoring');
    return null;
  }
  return options.filter;
}

async function fetchV2<T>(session: RemoteSession, options: FetchPackOptions<T>, shape: HistoryShape): Promise<FetchPackResult<T>> {
  const conn = session.conn;
  const filter = checkFilter(session, options);
  // Every commit the server acknowledged, resent in each (stateless) round, in the order learnt.
  const common = new Set<string>();
  let havesToSend = INITIAL_FLUSH;
  let inVain = 0;
  let seenAck = false;
  for (;;) {
    const haves: string[] = [];
    const negotiator = options.negotiator;
    while (negotiator && haves.length < havesToSend) {
      const oid = negotiator.next();
      if (oid === null) break;
      haves.push(oid);
    }
    havesToSend = nextFlush(true, havesToSend);
    inVain += haves.length;
    const done = haves.length === 0 || (seenAck && inVain >= MAX_IN_VAIN);
    const args = formatFetchArgs({
      thinPack: options.thinPack, noProgress: options.noProgress, includeTag: options.includeTag, ofsDelta: true,
      shallows: [...(options.shallows ?? [])], shape, filter, wants: [...options.wants], haves: [...common, ...haves], done,
    });
    const reader = await conn.send(formatCommandRequest('fetch', session.requestCapabilities(), args));
    const res = await readFetchResponse(reader);
    for (const oid of res.acks) {
      common.add(oid);
      options.negotiator?.ack(oid);
    }
    if (res.packfile) {
      // As receive_shallow_info: lines a deepen (or an unshallow) did not cause are the server's own.
      const deepened = deepens(shape) || res.unshallows.length > 0;
      const serverBoundary = deepened ? [] : res.shallows;
      const update = { shallows: deepened ? res.shallows : [], unshallows: res.unshallows };
      const pack = await options.receivePack(demuxSideband(reader, { onProgress: options.onProgress }), serverBoundary, update);
      return { pack, ...update, serverBoundary, filtered: filter !== null };
    }
    if (done) throw new GitError('protocol', 'unexpected', `${conn.name}: the server sent no pack after "done"`);
    if (res.acks.length > 0) {
      inVain = 0;
      seenAck = true;
    }
  }
}

async function fetchV0<T>(session: RemoteSession, options: FetchPackOptions<T>, shape: HistoryShape): Promise<FetchPackResult<T>> {
  const conn = session.conn;
  const deepen = deepens(shape);
  const stateless = conn.stateless;
  const filter = checkFilter(session, options);
  const multiAck = session.has('multi_ack_detailed') ? 2 : session.has('multi_ack') ? 1 : 0;
  const noDone = multiAck === 2 && session.has('no-done');
  const sideband = session.has('side-band-64k') ? 'side-band-64k' : session.has('side-band') ? 'side-band' : null;
  // git's do_fetch_pack, in its order.
  if (shape.deepenSince !== null && !session.has('deepen-since')) {
    throw new GitError('client', 'unsupported', `${conn.name}: Server does not support --shallow-since`);
  }
  if (shape.deepenNot.length && !session.has('deepen-not')) {
    throw new GitError('client', 'unsupported', `${conn.name}: Server does not support --shallow-exclude`);
  }
  if (shape.deepenRelative && !session.has('deepen-relative')) {
    throw new GitError('client', 'unsupported', `${conn.name}: Server does not support --deepen`);
  }
  const caps: Capability[] = [];
  if (multiAck === 2) caps.push({ name: 'multi_ack_detailed' });
  else if (multiAck === 1) caps.push({ name: 'multi_ack' });
  if (noDone) caps.push({ name: 'no-done' });
  if (sideband) caps.push({ name: sideband });
  if (options.thinPack && session.has('thin-pack')) caps.push({ name: 'thin-pack' });
  if (options.noProgress && session.has('no-progress')) caps.push({ name: 'no-progress' });
  if (options.includeTag && session.has('include-tag')) caps.push({ name: 'include-tag' });
  if (session.has('ofs-delta')) caps.push({ name: 'ofs-delta' });
  if (shape.deepenSince !== null) caps.push({ name: 'deepen-since' });
  if (shape.deepenNot.length) caps.push({ name: 'deepen-not' });
  if (shape.deepenRelative) caps.push({ name: 'deepen-relative' });
  if (session.has('agent')) caps.push({ name: 'agent', value: AGENT });
  if (filter) caps.push({ name: 'filter' });
  const state = formatUploadRequest({
    wants: [...options.wants], capabilities: caps, shallows: [...(options.shallows ?? [])], shape, filter,
  });

  let shallows: string[] = [];
  let unshallows: string[] = [];
  let reader: PacketReader = conn.reader;
  const readShallows = async () => {
    const update = await readShallowUpdate(reader);
    shallows = update.shallows;
    unshallows = update.unshallows;
  };
  // What every stateless request starts with: the want list, then commons the server must relearn.
  const stateParts: Buffer[] = stateless ? [state] : [];
  if (deepen) {
    reader = await conn.send(state);
    await readShallows();
  } else if (!stateless) {
    reader = await conn.send(state);
  }

  let round: Buffer[] = [];
  let count = 0, flushAt = INITIAL_FLUSH, flushes = 0, inVain = 0;
  let gotContinue = false, gotReady = false, found = false, waitForMore = multiAck > 0;
  const negotiator = options.negotiator;
  negotiate: for (let oid = negotiator?.next() ?? null; oid !== null; oid = negotiator!.next()) {
    round.push(haveLine(oid));
    inVain++;
    if (flushAt > ++count) continue;
    reader = await conn.send(Buffer.concat([...stateParts, ...round, FLUSH_PKT]));
    round = [];
    flushes++;
    flushAt = nextFlush(stateless, count);
    // Stay one batch ahead of the server: the first batch's answer is read after the second is sent.
    if (!stateless && count === INITIAL_FLUSH) continue;
    if (stateless && deepen) await readShallows();
    for (;;) {
      const ack = await readAck(reader);
      if (ack.kind === 'nak') break;
      if (ack.status === null) {
        flushes = 0;
        waitForMore = false;
        found = true;
        break negotiate;
      }
      const wasCommon = negotiator!.ack(ack.oid);
      if (stateless && ack.status === 'common' && !wasCommon) {
        // The next request must tell the (stateless) server again that this one is common.
        stateParts.push(haveLine(ack.oid));
        inVain = 0;
      } else if (!stateless || ack.status !== 'common') {
        inVain = 0;
      }
      found = true;
      gotContinue = true;
      if (ack.status === 'ready') gotReady = true;
    }
    flushes--;
    if (gotContinue && inVain > MAX_IN_VAIN) break;
    if (gotReady) break;
  }
  if (!gotReady || !noDone) {
    reader = await conn.send(Buffer.concat([...stateParts, ...round, pktLine('done\n')]));
    if (stateless && deepen) await readShallows();
  }
  if (!found) {
    waitForMore = false;
    flushes++;
  }
  while (flushes > 0 || waitForMore) {
    const ack = await readAck(reader);
    if (ack.kind === 'ack') {
      if (ack.status === null) break;
      waitForMore = true;
      continue;
    }
    flushes--;
  }
  const packStream = sideband ? demuxSideband(reader, { onProgress: options.onProgress }) : reader.rest();
  // A deepen's own shallow list supersedes the advertised boundary, as in git's update_shallow.
  const serverBoundary = deepen ? [] : [...session.serverShallows];
  const pack = await options.receivePack(packStream, serverBoundary, { shallows, unshallows });
  return { pack, shallows, unshallows, serverBoundary, filtered: filter !== null };
}
