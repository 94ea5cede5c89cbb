// Delta bases kept inflated, bounded in bytes (git's core.deltaBaseCacheLimit is 96 MiB). Each pack
// has its own map keyed by entry offset: offsets below 2^31 are small integers to V8, which hashes
// them far faster than the doubles a combined (pack, offset) key would be. Recency is an intrusive
// doubly linked list: evicting the oldest entry is O(1). (Evicting by iterating a Map from its
// start is not: V8 keeps deleted entries as holes until a rehash, and every eviction walked them.)
import type { ObjectTypeCode } from '../object/type.js';

export interface CachedBase {
  type: ObjectTypeCode;
  data: Buffer;
}

interface Node extends CachedBase {
  map: Map<number, Node>;
  offset: number;
  older: Node | null;
  newer: Node | null;
}

export const DEFAULT_DELTA_BASE_CACHE_LIMIT = 96 * 1024 * 1024;

export class DeltaBaseCache {
  private maps: Map<number, Node>[] = [];
  private oldest: Node | null = null;
  private newest: Node | null = null;
  private bytes = 0;

  constructor(private readonly limit = DEFAULT_DELTA_BASE_CACHE_LIMIT) {}

  private mapFor(pack: number): Map<number, Node> {
    return this.maps[pack] ??= new Map();
  }

  get(pack: number, offset: number): CachedBase | undefined {
    const node = this.maps[pack]?.get(offset);
    if (node && node !== this.newest) {
      this.unlink(node);
      this.append(node);
    }
    return node;
  }

  set(pack: number, offset: number, type: ObjectTypeCode, data: Buffer): void {
    const map = this.mapFor(pack);
    if (data.length > this.limit / 4 || map.has(offset)) return;
    const node: Node = { map, offset, type, data, older: null, newer: null };
    map.set(offset, node);
    this.append(node);
    this.bytes += data.length;
    while (this.bytes > this.limit && this.oldest) {
      const old = this.oldest;
      this.unlink(old);
      old.map.delete(old.offset);
      this.bytes -= old.data.length;
    }
  }

  clear(): void {
    this.maps = [];
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
