// The client's half of a push (git's send-pack.c): with the remote's advertisement read, send one
// "<old> <new> <ref>" command per update (capabilities on the first: report-status[-v2],
// side-band-64k, quiet, atomic, push-options, object-format, agent), the push options, and unless
// every update is a deletion the pack, written as it is sent; then read report-status (inside
// side-band 1 when asked for it, with side-band 2 relayed as "remote: ..." until the final flush).
// Over smart HTTP all of that is one POST; over ssh, git:// and a local process one stream.
import { GitError } from '../../core/errors.js';
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import type { ObjectStore } from '../../odb/object-store.js';
import type { Progress } from '../../core/progress.js';
import { writePack, type ChunkSink } from '../../packing/write/index.js';
import {
  demuxSideband, formatPushOptions, formatPushRequest, hasCapability, readStatusReport, FLUSH_PKT, PacketReader,
  type Capability, type PushCommand, type StatusReport,
} from '../../protocol/index.js';
import type { Connection } from '../../transport/index.js';
import { AGENT } from '../session.js';
import { enumeratePush } from './pack.js';
import type { PushRef } from './status.js';

export interface SendPackOptions {
  readonly atomic: boolean;
  /** null: no -o given. */
  readonly pushOptions: readonly string[] | null;
  readonly dryRun: boolean;
  /** Ask the server to keep quiet (git does with -q, or when no progress is shown). */
  readonly quiet: boolean;
  readonly progress?: Progress;
  /** The pack writer's summary line, as pack-objects prints it with progress. */
  readonly onTotal?: (text: string) => void;
  /** Side-band 2 text, in whole lines. */
  readonly onRemote?: (text: string) => void;
  readonly signal?: AbortSignal;
  /** This repository's shallow boundary: sent first, as git does, and where the walk stops. */
  readonly shallows?: readonly string[];
}

export interface SendPackResult {
  /** null when nothing was sent (dry run, or nothing to update). */
  readonly report: StatusReport | null;
  readonly objects: number;
}

/** Chunks of the pack kept in flight before the writer waits for the connection. */
const IN_FLIGHT = 8;
/** Stored entries are reused when the push sends at least this fraction (1/n) of the packed objects. */
const REUSE_FRACTION = 16;

/**
 * With more refs than this on the remote, its tags are left out of what the walk excludes: its
 * branches bound a push of new commits as well, and reading a thousand tags and their commits
 * cost more than the push (git reads them all, in a fraction of the time).
 */
const MAX_HAVE_TAGS = 256;

export async function sendPack(conn: Connection, capabilities: readonly Capability[], refs: PushRef[], odb: ObjectStore,
  remoteRefs: readonly { name: string; oid: string }[], o: SendPackOptions): Promise<SendPackResult> {
  const has = (c: string) => hasCapability(capabilities, c);
  if (o.atomic && !has('atomic')) throw new GitError('client', 'unsupported', 'the receiving end does not support --atomic push');
  if (o.pushOptions && !has('push-options')) throw new GitError('client', 'unsupported', 'the receiving end does not support push options');
  for (const r of refs) if (r.status === 'pending' && r.newOid === ZERO_HEX && !has('delete-refs')) r.status = 'no-delete';
  // git's reject_atomic_push: one update refused here means none is sent.
  if (o.atomic && refs.some((r) => r.status !== 'pending' && r.status !== 'up-to-date')) {
    for (const r of refs) if (r.status === 'pending') r.status = 'atomic-failed';
  }
  const sending = refs.filter((r) => r.status === 'pending');
  if (o.dryRun || sending.length === 0) {
    for (const r of sending) r.status = 'ok';
    if (!conn.stateless) await conn.send(FLUSH_PKT);
    return { report: null, objects: 0 };
  }
  const status = has('report-status-v2') ? 'report-status-v2' : has('report-status') ? 'report-status' : null;
  const sideband = has('side-band-64k');
  const caps: Capability[] = [];
  if (status) caps.push({ name: status });
  if (sideband) caps.push({ name: 'side-band-64k' });
  if (has('quiet') && o.quiet) caps.push({ name: 'quiet' });
  if (o.atomic) caps.push({ name: 'atomic' });
  if (o.pushOptions) caps.push({ name: 'push-options' });
  if (has('object-format')) caps.push({ name: 'object-format', value: 'sha1' });
  if (has('agent')) caps.push({ name: 'agent', value: AGENT });
  const commands: PushCommand[] = sending.map((r) => ({ oldOid: r.oldOid, newOid: r.newOid, name: r.dst }));
  const tips = sending.filter((r) => r.newOid !== ZERO_HEX).map((r) => fromHex(r.newOid)!);
  let objects = 0;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield formatPushRequest(commands, caps, o.shallows ?? []);
    if (o.pushOptions) yield formatPushOptions(o.pushOptions);
    if (tips.length === 0) return;
    const enumerating = o.progress?.('Enumerating objects', 0);
    const haves = remoteRefs.length > MAX_HAVE_TAGS ? remoteRefs.filter((r) => !r.name.startsWith('refs/tags/')) : remoteRefs;
    const pack = enumeratePush(odb, tips, haves.map((r) => fromHex(r.oid)!), (o.shallows ?? []).map((h) => fromHex(h)!),
      (n) => enumerating?.update(n));
    enumerating?.stop();
    objects = pack.count;
    // A few objects out of many are compressed afresh rather than found in the packs' indexes.
    const packed = odb.packedObjectCount();
    yield* streamed((sink) => writePack(odb, pack.contents, sink, {
      ofsDelta: has('ofs-delta'), thin: true, progress: o.progress, writingProgress: true, signal: o.signal, chunkSize: 65536,
      reuse: pack.count * REUSE_FRACTION >= packed,
      // The receiver hashes every object (git's send-pack runs pack-objects --stdout, unchecked).
      checkReused: false,
    }).then((stats) => {
      o.onTotal?.(`Total ${stats.total} (delta ${stats.deltas}), reused ${stats.reused} (delta ${stats.reusedDeltas}), pack-reused ${stats.packReused}\n`);
    }));
  }
  const reader = await conn.send(body());
  if (!status) {
    for (const r of sending) r.status = 'ok';
    return { report: null, objects };
  }
  let report: StatusReport;
  if (sideband) {
    const bands = demuxSideband(reader, { onProgress: o.onRemote });
    report = await readStatusReport(new PacketReader(bands, conn.name));
    // What the server says after its report (post-receive's output), up to its final flush.
    for await (const chunk of bands) void chunk;
  } else {
    report = await readStatusReport(reader);
  }
  applyReport(sending, report);
  return { report, objects };
}

/**
 * git's receive_status: each verdict, in the server's order, goes to the first sent ref of its
 * name from the one the verdict before went to, else from the start; a ref no verdict reached
 * failed. A ref sent twice (to a remote without refs) takes both verdicts on its first, the
 * second none, as in git.
 */
function applyReport(sending: PushRef[], report: StatusReport): void {
  const judged = new Set<PushRef>();
  let hint = -1;
  for (const verdict of report.refs) {
    const from = Math.max(hint, 0);
    hint = sending.findIndex((r, i) => i >= from && r.dst === verdict.name);
    if (hint < 0) hint = sending.findIndex((r) => r.dst === verdict.name);
    const r = sending[hint];
    if (r === undefined) continue;
    judged.add(r);
    if (verdict.error === null) r.status = 'ok';
    else {
      r.status = 'remote-rejected';
      r.remoteMessage = verdict.error;
    }
  }
  for (const r of sending) if (!judged.has(r)) r.status = 'expecting-report';
}

/**
 * The chunks `write` hands its sink, as an async iterable, with at most IN_FLIGHT waiting. The
 * writer may hand over several chunks before it waits (its last chunk and the trailer, say): every
 * call made while the queue is full gets the same promise, settled when there is room again, so
 * none is left waiting for good.
 */
export async function* streamed(write: (sink: ChunkSink) => Promise<void>): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let finished = false, failure: unknown = null;
  let wake: (() => void) | null = null;
  let room: (() => void) | null = null;
  let roomMade: Promise<void> | null = null;
  const sink: ChunkSink = (chunk) => {
    queue.push(chunk);
    wake?.();
    if (queue.length < IN_FLIGHT) return undefined;
    roomMade ??= new Promise<void>((resolve) => { room = resolve; });
    return roomMade;
  };
  write(sink).then(() => { finished = true; wake?.(); }, (e: unknown) => { failure = e; finished = true; wake?.(); });
  for (;;) {
    if (queue.length > 0) {
      const chunk = queue.shift()!;
      if (room && queue.length < IN_FLIGHT) {
        const r: () => void = room;
        room = null;
        roomMade = null;
        r();
      }
      yield chunk;
      continue;
    }
    if (failure) throw failure;
    if (finished) return;
    await new Promise<void>((resolve) => { wake = resolve; });
    wake = null;
  }
}
