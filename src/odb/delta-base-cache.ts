// Delta bases kept inflated, bounded in bytes (git's core.deltaBaseCacheLimit is 96 MiB). Keys are
// numbers (pack number * 2^40 + offset), so a lookup makes no string. Recency is an intrusive
// doubly linked list: evicting the oldest entry is O(1). (Evicting by iterating a Map from its
// start is not: V8 keeps deleted entries as holes until a rehash, and every eviction walked them.)
import type { ObjectTypeCode } from '../object/type.js';

export interface CachedBase {
  type: ObjectTypeCode;
  data: Buffer;
}

interface Node extends CachedBase {
  key: number;
  older: Node | null;
  newer: Node | null;
}

export const DEFAULT_DELTA_BASE_CACHE_LIMIT = 96 * 1024 * 1024;

export class DeltaBaseCache {
  private map = new Map<number, Node>();
  private oldest: Node | null = null;
  private newest: Node | null = null;
  private bytes = 0;

  constructor(private readonly limit = DEFAULT_DELTA_BASE_CACHE_LIMIT) {}

  static key(packNumber: number, offset: number): number {
    return packNumber * 2 ** 40 + offset;
  }

  get(key: number): CachedBase | undefined {
    const node = this.map.get(key);
    if (node && node !== this.newest) {
      this.unlink(node);
      this.append(node);
    }
    return node;
  }

  set(key: number, type: ObjectTypeCode, data: Buffer): void {
    if (data.length > this.limit / 4 || this.map.has(key)) return;
    const node: Node = { key, type, data, older: null, newer: null };
    this.map.set(key, node);
    this.append(node);
    this.bytes += data.length;
    while (this.bytes > this.limit && this.oldest) {
      const old = this.oldest;
      this.unlink(old);
      this.map.delete(old.key);
      this.bytes -= old.data.length;
    }
  }

  clear(): void {
    this.map.clear();
    this.oldest = this.newest = null;
    this.bytes = 0;
  }

  private unlink(node: Node): void {
    if (node.older) node.older.newer = node.newer; else this.oldest = node.newer;
    if (node.newer) node.newer.older = node.older; else this.newest = node.older;
    node.older = node.newer = null;
  }

  private append(node: Node): void {
    node.older = this.newest;
    if (this.newest) this.newest.newer = node; else this.oldest = node;
    this.newest = node;
  }
}
