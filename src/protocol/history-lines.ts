// The lines of a fetch request that shape its history (gitprotocol-pack and -v2: shallow, deepen,
// deepen-since, deepen-not, filter), read the same way from a v0/v1 want list and from v2 fetch
// arguments, which differ only in how the lines arrive.
import { CorruptError } from '../core/errors.js';
import { parseFilterSpec, type FilterSpec } from './filter-spec.js';
import { limitError, parseDecimal, parseName, parseOid, type RequestLimits } from './text.js';

/** git's INFINITE_DEPTH: the `deepen` of `fetch --unshallow`, all of history. */
export const INFINITE_DEPTH = 0x7fffffff;

export interface HistoryRequest {
  readonly shallows: string[];
  /** deepen <depth>; 0 when not asked. */
  readonly depth: number;
  readonly deepenSince: number | null;
  readonly deepenNot: string[];
  readonly filter: FilterSpec | null;
}

export class HistoryLines implements HistoryRequest {
  readonly shallows: string[] = [];
  readonly deepenNot: string[] = [];
  depth = 0;
  deepenSince: number | null = null;
  filter: FilterSpec | null = null;

  constructor(private readonly limits: RequestLimits) {}

  /** Takes one such line (`name` its first word); false when `name` is none of them. */
  take(name: string, value: string, where: string): boolean {
    const limits = this.limits;
    switch (name) {
      case 'shallow':
        if (this.shallows.length >= limits.maxShallows) throw limitError(where, 'shallow lines', limits.maxShallows);
        this.shallows.push(parseOid(value, where));
        return true;
      case 'deepen':
        if (this.depth !== 0) throw new CorruptError('protocol', `${where}: more than one deepen line`);
        this.depth = parseDecimal(value, 'deepen depth', where);
        if (this.depth === 0) throw new CorruptError('protocol', `${where}: invalid deepen depth "0"`);
        return true;
      case 'deepen-since':
        if (this.deepenSince !== null) throw new CorruptError('protocol', `${where}: more than one deepen-since line`);
        this.deepenSince = parseDecimal(value, 'deepen-since timestamp', where);
        if (this.deepenSince === 0) throw new CorruptError('protocol', `${where}: invalid deepen-since timestamp "0"`);
        return true;
      case 'deepen-not':
        if (this.deepenNot.length >= limits.maxOther) throw limitError(where, 'deepen-not lines', limits.maxOther);
        this.deepenNot.push(parseName(value, 'deepen-not ref', where));
        return true;
      case 'filter':
        if (this.filter) throw new CorruptError('protocol', `${where}: more than one filter line`);
        this.filter = parseFilterSpec(value);
        return true;
      default:
        return false;
    }
  }

  /** The request as read, once its last line is in: git refuses deepen with deepen-since or -not. */
  finish(where: string): HistoryRequest {
    if (this.depth > 0 && (this.deepenSince !== null || this.deepenNot.length > 0)) {
      throw new CorruptError('protocol', `${where}: deepen cannot be combined with deepen-since or deepen-not`);
    }
    return { shallows: this.shallows, depth: this.depth, deepenSince: this.deepenSince, deepenNot: this.deepenNot, filter: this.filter };
  }
}
