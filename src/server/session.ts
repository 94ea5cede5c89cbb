// What one upload-pack request works with: the repository, its refs as advertised, the policy read
// from its config, the response being written, and one object table (the walk's) that every step
// shares, with upload-pack's own per-object marks beside the walk's flags.
import { GitError } from '../core/errors.js';
import { fromHex, OID_BYTES, toHex } from '../core/oid.js';
import { parseTag } from '../object/tag.js';
import { OBJ_TAG } from '../object/type.js';
import { pktLine, type PacketSource } from '../protocol/index.js';
import type { Repository } from '../repository/repository.js';
import { ObjectWalk, SHALLOW as GRAFTED } from '../walk/object-walk.js';
import { ensureCapacity } from '../walk/oid-map.js';
import type { UploadPackPolicy } from './policy.js';
import type { RefSnapshot, ServedRef } from './refs.js';
import type { ServiceLimits } from './limits.js';
import type { ResponseSink } from './service.js';

export type { ResponseSink } from './service.js';

// upload-pack's marks (upload-pack.c keeps the same ones in object flags).
export const THEY_HAVE = 1;
export const COMMON_KNOWN = 2;
export const CLIENT_SHALLOW = 16;
export const SHALLOW = 32;
export const NOT_SHALLOW = 64;

export interface UploadPackOptions {
  /** One request, one response, then exit (smart HTTP). */
  statelessRpc: boolean;
  /** Print the advertisement and exit (smart HTTP info/refs). */
  advertiseRefs: boolean;
  /** From GIT_PROTOCOL: 0, 1 or 2. */
  version: 0 | 1 | 2;
  /** Wants, haves (per request, and over all rounds of a connection), rounds, input bytes. */
  limits: ServiceLimits;
  /** The access log's view of the request: wants and haves received, summed over its rounds. */
  counts: { wants: number; haves: number };
  /** Stops pack writing when the client went away. */
  signal?: AbortSignal;
  /** What the `agent` capability says. */
  agent: string;
}

export class Response {
  private waiting: Promise<void>[] = [];
  /** v2 sideband-all: every pkt-line of the response travels on band 1. */
  sidebandAll = false;
  /** The pack part has begun: errors now travel on band 3, not as an ERR line. */
  packStarted = false;
  /** When anything was last written (for keep-alives). */
  lastWrite = Date.now();

  constructor(readonly sink: ResponseSink) {}

  /** Writes framed pkt-lines (or raw bytes with `raw`). */
  write(data: Buffer, raw = false): void {
    this.lastWrite = Date.now();
    const r = this.sink(this.sidebandAll && !raw ? toBand1(data) : data);
    if (r) this.waiting.push(r);
  }

  line(text: string): void {
    this.write(pktLine(text));
  }

  async drain(): Promise<void> {
    while (this.waiting.length) {
      const all = this.waiting;
      this.waiting = [];
      await Promise.all(all);
    }
  }
}

/** Re-frames each data pkt-line of `framed` with a band-1 byte; flush and delim pass unchanged. */
function toBand1(framed: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let p = 0; p < framed.length;) {
    const len = parseInt(framed.toString('latin1', p, p + 4), 16);
    if (len < 4) {
      out.push(framed.subarray(p, p + 4));
      p += 4;
      continue;
    }
    out.push(pktLine(Buffer.concat([Buffer.of(1), framed.subarray(p + 4, p + len)])));
    p += len;
  }
  return Buffer.concat(out);
}

/**
 * Objects a request's walk is sized for at first. A fetch answered by bitmaps interns only its
 * wants and haves; the walk's default table (64 Ki objects, megabytes allocated and cleared) cost
 * every such fetch a millisecond or two and its garbage. A walked request grows the table.
 */
const WALK_EXPECTED = 1024;

export class Session {
  walk: ObjectWalk;
  marks = new Uint8Array(1024);
  /**
   * This repository's own shallow boundary ($GIT_DIR/shallow), sorted by id as git advertises it.
   * Its commits have no parents in every walk the session makes, as git's grafts make them.
   */
  readonly shallowHere: readonly string[];
  /** Those of them that are here (interning one tells the walk it exists), read once for every walk. */
  private readonly grafts: readonly Uint8Array[];

  constructor(readonly repo: Repository, readonly policy: UploadPackPolicy, readonly refs: RefSnapshot,
    readonly input: PacketSource, readonly out: Response, readonly options: UploadPackOptions,
    /** The refs uploadpack.hideRefs keeps out of `refs` (hidden-refs.ts). */
    readonly hidden: readonly ServedRef[] = []) {
    const shallow = repo.shallowCommits();
    this.shallowHere = shallow.map(id => toHex(id)).sort();
    this.grafts = shallow.filter(id => repo.odb.has(id));
    this.walk = this.newWalk();
  }

  private newWalk(): ObjectWalk {
    const walk = new ObjectWalk(this.repo.odb, WALK_EXPECTED);
    walk.setShallow(this.grafts);
    return walk;
  }

  /** Forgets every mark and walk state, as git does between the commands of one v2 connection. */
  reset(): void {
    // A walk that has not seen an object (ls-refs, the first command) is as good as a new one.
    if (this.walk.ids.size > 0) {
      this.walk = this.newWalk();
      this.marks = new Uint8Array(1024);
    }
    this.out.sidebandAll = false;
    this.out.packStarted = false;
  }

  get odb() {
    return this.repo.odb;
  }

  /** The object table index of a hex id, adding it if new. */
  index(hex: string): number {
    const idx = this.walk.intern(fromHex(hex)!, 0, 0);
    if (idx >= this.marks.length) this.marks = ensureCapacity(this.marks, idx + 1);
    return idx;
  }

  /** Index of an id given as bytes. */
  indexOf(buf: Uint8Array, off: number): number {
    const idx = this.walk.intern(buf, off, 0);
    if (idx >= this.marks.length) this.marks = ensureCapacity(this.marks, idx + 1);
    return idx;
  }

  hex(idx: number): string {
    return toHex(this.walk.ids.keys, idx * OID_BYTES);
  }

  oid(idx: number): Uint8Array {
    return this.walk.ids.keys.slice(idx * OID_BYTES, idx * OID_BYTES + OID_BYTES);
  }

  /** Whether the object is here: an index lookup, without reading its header as typeOf() does. */
  exists(idx: number): boolean {
    return this.walk.types[idx] !== 0 || this.odb.has(this.walk.ids.keys, idx * OID_BYTES);
  }

  /** The object's type code, or 0 when it does not exist here. */
  typeOf(idx: number): number {
    let t = this.walk.types[idx]!;
    if (!t) {
      const info = this.odb.info(this.walk.ids.keys, idx * OID_BYTES);
      if (!info) return 0;
      t = this.walk.types[idx] = info.type;
    }
    return t;
  }

  mark(idx: number, flag: number): void {
    if (idx >= this.marks.length) this.marks = ensureCapacity(this.marks, idx + 1);
    this.marks[idx]! |= flag;
  }

  has(idx: number, flag: number): boolean {
    return idx < this.marks.length && (this.marks[idx]! & flag) !== 0;
  }

  /** A commit's parents (as the walk will see them, so after any shallow cut). */
  parents(idx: number): Int32Array {
    this.walk.parseCommitAt(idx);
    if (this.walk.ids.size > this.marks.length) this.marks = ensureCapacity(this.marks, this.walk.ids.size);
    return this.walk.parents[idx]!;
  }

  time(idx: number): number {
    this.walk.parseCommitAt(idx);
    return this.walk.time[idx]!;
  }

  /** Whether `idx` is one of this repository's own shallow commits. */
  isShallowHere(idx: number): boolean {
    return (this.walk.flags[idx]! & GRAFTED) !== 0;
  }

  /** Makes the walk treat `idx` as having no parents (a shallow boundary). */
  cutParents(idx: number): void {
    this.walk.parseCommitAt(idx);
    this.walk.parents[idx] = new Int32Array(0);
  }

  /** Peels tags; returns the index of the first non-tag object, or -1 when one is missing. */
  peel(idx: number): number {
    for (let i = 0; i < 64 && this.typeOf(idx) === OBJ_TAG; i++) {
      const data = this.odb.mustRead(this.walk.ids.keys, idx * OID_BYTES, OBJ_TAG).data;
      const tag = parseTag(data, () => `tag ${this.hex(idx)}`);
      idx = this.indexOf(tag.object, 0);
    }
    return this.typeOf(idx) ? idx : -1;
  }
}

/** An error the client is told about (as an ERR line or on band 3) before the connection closes. */
export function clientError(message: string): GitError {
  return new GitError('server', 'client-error', message);
}
