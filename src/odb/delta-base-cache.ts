// Delta bases kept inflated, bounded in bytes (git's core.deltaBaseCacheLimit is 96 MiB).
// Each pack has its own map from entry offset to a slot number: offsets below 2^31 are small
// integers to V8, which hashes them far faster than a combined (pack, offset) double. Slots live in
// parallel arrays with an intrusive recency list (older/newer slot links), so a hit or an eviction
// is O(1) and caching a base allocates no object. (Evicting by iterating a Map from its front was
// O(n): V8 keeps deleted entries as holes until a rehash, and every eviction walked them.)
import type { ObjectTypeCode } from '../object/type.js';

export interface CachedBase {
  type: ObjectTypeCode;
  data: Buffer;
}

export const DEFAULT_DELTA_BASE_CACHE_LIMIT = 96 * 1024 * 1024;

const NONE = -1;

export class DeltaBaseCache {
  private maps: Map<number, number>[] = [];
  private data: (Buffer | null)[] = [];
  private types = new Uint8Array(1024);
  private packOf = new Int32Array(1024);
  private offsetOf = new Float64Array(1024);
  private older = new Int32Array(1024);
  private newer = new Int32Array(1024);
  private free: number[] = [];
  private oldest = NONE;
  private newest = NONE;
  private bytes = 0;
  /** Returned by get(); valid until the next call. */
  private readonly hit: CachedBase = { type: 1, data: Buffer.alloc(0) };

  constructor(private readonly limit = DEFAULT_DELTA_BASE_CACHE_LIMIT) {}

  /** The cached base, or undefined. The returned record is reused by the next get(). */
  get(pack: number, offset: number): CachedBase | undefined {
    const slot = this.maps[pack]?.get(offset);
    if (slot === undefined) return undefined;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.append(slot);
    }
    this.hit.type = this.types[slot] as ObjectTypeCode;
    this.hit.data = this.data[slot]!;
    return this.hit;
  }

  set(pack: number, offset: number, type: ObjectTypeCode, data: Buffer): void {
    const map = this.maps[pack] ??= new Map();
    if (data.length > this.limit / 4 || map.has(offset)) return;
    const slot = this.allocSlot();
    this.data[slot] = data;
    this.types[slot] = type;
    this.packOf[slot] = pack;
    this.offsetOf[slot] = offset;
    map.set(offset, slot);
    this.append(slot);
    this.bytes += data.length;
    while (this.bytes > this.limit && this.oldest !== NONE) this.evict(this.oldest);
  }

  clear(): void {
    this.maps = [];
    this.data = [];
    this.free = [];
    this.oldest = this.newest = NONE;
    this.bytes = 0;
  }

  private allocSlot(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const slot = this.data.length;
    this.data.push(null);
    if (slot >= this.types.length) {
      const n = this.types.length * 2;
      this.types = grow(this.types, new Uint8Array(n));
      this.packOf = grow(this.packOf, new Int32Array(n));
      this.offsetOf = grow(this.offsetOf, new Float64Array(n));
      this.older = grow(this.older, new Int32Array(n));
      this.newer = grow(this.newer, new Int32Array(n));
    }
    return slot;
  }

  private evict(slot: number): void {
    this.unlink(slot);
    this.maps[this.packOf[slot]!]!.delete(this.offsetOf[slot]!);
    this.bytes -= this.data[slot]!.length;
    this.data[slot] = null;
    this.free.push(slot);
  }

  private unlink(slot: number): void {
    const o = this.older[slot]!, n = this.newer[slot]!;
    if (o !== NONE) this.newer[o] = n; else this.oldest = n;
    if (n !== NONE) this.older[n] = o; else this.newest = o;
  }

  private append(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = NONE;
    if (this.newest !== NONE) this.newer[this.newest] = slot; else this.oldest = slot;
    this.newest = slot;
  }
}

function grow<T extends Uint8Array | Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
