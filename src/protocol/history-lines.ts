// The lines of a fetch request that shape its history (gitprotocol-pack and -v2: shallow, deepen,
// deepen-since, deepen-not, deepen-relative, filter), read and written the same way for a v0/v1
// want list and for v2 fetch arguments, which differ only in how the lines travel.
import { CorruptError } from '../core/errors.js';
import { formatFilterSpec, parseFilterSpec, type FilterSpec } from './filter-spec.js';
import { checkName, checkOid, limitError, parseDecimal, parseName, parseOid, type RequestLimits } from './text.js';

/** git's INFINITE_DEPTH: the `deepen` of `fetch --unshallow`, all of history. */
export const INFINITE_DEPTH = 0x7fffffff;

/**
 * How a fetch moves the shallow boundary (git's fetch-pack args: depth, deepen_since, deepen_not,
 * deepen_relative). The client's request and the server's reading of it are this one value, from
 * the command line's --depth, --deepen, --unshallow, --shallow-since and --shallow-exclude down
 * to the wire and back.
 */
export interface HistoryShape {
  /** deepen <depth>; 0 when not asked, INFINITE_DEPTH for --unshallow. */
  readonly depth: number;
  /** deepen-since <seconds>; null when not asked. */
  readonly deepenSince: number | null;
  /** deepen-not <ref>: refs whose history the new boundary leaves out. */
  readonly deepenNot: readonly string[];
  /** `depth` counts from the client's shallow boundary rather than from the wants. */
  readonly deepenRelative: boolean;
}

/** No deepening: the history the client has (or, for a clone, all of it). */
export const NO_DEEPEN: HistoryShape = Object.freeze({ depth: 0, deepenSince: null, deepenNot: Object.freeze([]), deepenRelative: false });

/** Whether the shape moves the shallow boundary: git's args->deepen. */
export function deepens(shape: HistoryShape): boolean {
  return shape.depth > 0 || shape.deepenSince !== null || shape.deepenNot.length > 0;
}

export interface HistoryRequest {
  /** The client's shallow boundary. */
  readonly shallows: string[];
  readonly shape: HistoryShape;
  readonly filter: FilterSpec | null;
}

/**
 * The request's history lines, without framing, in the order git's fetch-pack writes them. v2
 * sends deepen-relative among them; v0 asks for it as a capability of the first want line instead
 * (`relativeLine` false), which the caller writes.
 */
export function formatHistoryLines(req: Partial<HistoryRequest>, relativeLine: boolean): string[] {
  const shape = req.shape ?? NO_DEEPEN;
  const lines = (req.shallows ?? []).map((oid) => `shallow ${checkOid(oid, 'shallow')}`);
  if (shape.depth) lines.push(`deepen ${shape.depth}`);
  if (shape.deepenSince !== null) lines.push(`deepen-since ${shape.deepenSince}`);
  for (const ref of shape.deepenNot) lines.push(`deepen-not ${checkName(ref, 'deepen-not ref')}`);
  if (relativeLine && shape.deepenRelative) lines.push('deepen-relative');
  if (req.filter) lines.push(`filter ${formatFilterSpec(req.filter)}`);
  return lines;
}

/** A request's history lines as they arrive, one by one; finish() is the request they make. */
export class HistoryLines {
  readonly shallows: string[] = [];
  readonly deepenNot: string[] = [];
  depth = 0;
  deepenSince: number | null = null;
  /** Not a line of its own in v0 (a capability there): the reader of each version sets it. */
  deepenRelative = false;
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
    const shape = { depth: this.depth, deepenSince: this.deepenSince, deepenNot: this.deepenNot, deepenRelative: this.deepenRelative };
    return { shallows: this.shallows, shape, filter: this.filter };
  }
}
