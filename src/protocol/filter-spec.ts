// Partial-clone filter specs (git rev-list --filter), as a client sends them in a `filter` line.
// Sizes accept git's k/m/g suffixes but are always sent back fully expanded, as gitprotocol-v2 asks.
// sparse:oid needs blob contents to interpret, so this layer refuses it as unsupported.
import { GitError } from '../core/errors.js';
import type { ObjectType } from '../core/hash.js';

export type FilterSpec =
  | { readonly kind: 'blob:none' }
  | { readonly kind: 'blob:limit'; readonly bytes: number }
  | { readonly kind: 'tree'; readonly depth: number }
  | { readonly kind: 'object:type'; readonly type: ObjectType }
  | { readonly kind: 'combine'; readonly filters: readonly FilterSpec[] };

const OBJECT_TYPES: readonly ObjectType[] = ['blob', 'tree', 'commit', 'tag'];
const SCALE: Record<string, number> = { '': 1, k: 1024, m: 1024 * 1024, g: 1024 * 1024 * 1024 };
// Characters a combine: sub-spec must percent-encode (git's RESERVED_NON_WS, plus white space).
const RESERVED = '~`!@#$^&*()[]{}\\;\'",<>?';

function invalid(spec: string, why: string): GitError {
  return new GitError('protocol', 'invalid-filter', `invalid filter-spec ${JSON.stringify(spec)}: ${why}`);
}

function parseSize(text: string, spec: string, what: string): number {
  const m = /^([0-9]+)([kmgKMG]?)$/.exec(text);
  const n = m ? Number(m[1]) * SCALE[m[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(n)) throw invalid(spec, `expected ${what}`);
  return n;
}

function percentDecode(text: string, spec: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(spec, `bad percent-encoding in ${JSON.stringify(text)}`);
  }
}

export function parseFilterSpec(spec: string): FilterSpec {
  if (spec === 'blob:none') return { kind: 'blob:none' };
  if (spec.startsWith('blob:limit=')) return { kind: 'blob:limit', bytes: parseSize(spec.slice(11), spec, "'blob:limit=<n>[kmg]'") };
  if (spec.startsWith('tree:')) return { kind: 'tree', depth: parseSize(spec.slice(5), spec, "'tree:<depth>'") };
  if (spec.startsWith('object:type=')) {
    const type = spec.slice(12) as ObjectType;
    if (!OBJECT_TYPES.includes(type)) throw invalid(spec, `${JSON.stringify(type)} is not an object type`);
    return { kind: 'object:type', type };
  }
  if (spec.startsWith('combine:')) {
    const body = spec.slice(8);
    if (body === '') throw invalid(spec, 'expected something after combine:');
    const filters = body.split('+').map((sub) => {
      for (const ch of sub) {
        if (ch <= ' ' || RESERVED.includes(ch)) throw invalid(spec, `must escape ${JSON.stringify(ch)} in a sub-filter-spec`);
      }
      return parseFilterSpec(percentDecode(sub, spec));
    });
    return { kind: 'combine', filters };
  }
  if (spec.startsWith('sparse:')) {
    throw new GitError('protocol', 'unsupported', `filter-spec ${JSON.stringify(spec)}: sparse filters are not supported`);
  }
  throw invalid(spec, 'unknown filter');
}

/**
 * The filter of a command line that gives `next` after `current` (git's repeated --filter):
 * `next` alone at first, then every one given, combined (added to a combine: given first).
 */
export function addFilter(current: FilterSpec | null | undefined, next: FilterSpec): FilterSpec {
  if (!current) return next;
  return { kind: 'combine', filters: current.kind === 'combine' ? [...current.filters, next] : [current, next] };
}

function encodeSub(text: string): string {
  let out = '';
  for (const ch of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(ch);
    out += ch <= 0x20 || ch >= 0x7f || c === '%' || c === '+' || RESERVED.includes(c)
      ? `%${ch.toString(16).toUpperCase().padStart(2, '0')}` : c;
  }
  return out;
}

/** The canonical text of a filter, with sizes in plain bytes. */
export function formatFilterSpec(filter: FilterSpec): string {
  switch (filter.kind) {
    case 'blob:none': return 'blob:none';
    case 'blob:limit': return `blob:limit=${filter.bytes}`;
    case 'tree': return `tree:${filter.depth}`;
    case 'object:type': return `object:type=${filter.type}`;
    case 'combine': return `combine:${filter.filters.map((f) => encodeSub(formatFilterSpec(f))).join('+')}`;
  }
}
