// Delta bases kept inflated, bounded in bytes (git's core.deltaBaseCacheLimit is 96 MiB). Keys are
// numbers (pack number * 2^40 + offset), so a lookup makes no string. Map iteration order is
// insertion order, which makes delete-then-set an O(1) LRU.
import type { ObjectTypeCode } from '../object/type.js';

export interface CachedBase {
  type: ObjectTypeCode;
  data: Buffer;
}

export const DEFAULT_DELTA_BASE_CACHE_LIMIT = 96 * 1024 * 1024;

export class DeltaBaseCache {
  private map = new Map<number, CachedBase>();
  private bytes = 0;

  constructor(private readonly limit = DEFAULT_DELTA_BASE_CACHE_LIMIT) {}

  static key(packNumber: number, offset: number): number {
    return packNumber * 2 ** 40 + offset;
  }

  get(key: number): CachedBase | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  set(key: number, type: ObjectTypeCode, data: Buffer): void {
    if (data.length > this.limit / 4 || this.map.has(key)) return;
    this.map.set(key, { type, data });
    this.bytes += data.length;
    if (this.bytes > this.limit) {
      for (const [k, v] of this.map) {
        this.map.delete(k);
        this.bytes -= v.data.length;
        if (this.bytes <= this.limit) break;
      }
    }
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}
