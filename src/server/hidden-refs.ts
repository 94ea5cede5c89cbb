// transfer.hideRefs with uploadpack.hideRefs or receive.hideRefs: refs a service neither shows nor
// serves, read and matched as git's parse_hide_refs_config and ref_is_hidden do. upload-pack leaves
// a hidden ref out of its advertisement and ls-refs, refuses it as a want-ref, and accepts its tip
// as a v0 want only under uploadpack.allowTipSHA1InWant (or allowReachableSHA1InWant), as git's
// is_our_ref does; receive-pack neither shows nor moves one.
import { Derived, DerivedKey } from '../core/derived.js';
import type { Config } from '../config/index.js';
import type { RefSnapshot, ServedRef } from './refs.js';

/**
 * The patterns of transfer.hideRefs and `<section>.hideRefs`, in the order the configuration
 * gives them (one list, as git appends both keys to it): the last match decides, so a later
 * `!pattern` of either key un-hides what an earlier one hid. Trailing slashes are dropped.
 */
export function hideRefsConfig(config: Config | null, section: 'uploadpack' | 'receive'): string[] {
  if (!config) return [];
  const patterns: string[] = [];
  for (const e of config.list()) {
    if (e.subsection !== null || e.key !== 'hiderefs' || (e.section !== 'transfer' && e.section !== section)) continue;
    patterns.push((e.value ?? '').replace(/\/+$/, ''));
  }
  return patterns;
}

/**
 * git's ref_is_hidden: the last matching pattern decides; `!` un-hides; `^` matches the full
 * name (namespaces are not supported, so both names are the same here). A pattern matches a ref
 * equal to it or below it.
 */
export function isHiddenRef(name: string, patterns: readonly string[]): boolean {
  for (let i = patterns.length - 1; i >= 0; i--) {
    let p = patterns[i]!;
    const negated = p.startsWith('!');
    if (negated) p = p.slice(1);
    if (p.startsWith('^')) p = p.slice(1);
    if (p.endsWith('/')) p = p.slice(0, -1);
    if (name === p || (name.startsWith(p) && name[p.length] === '/')) return !negated;
  }
  return false;
}

export interface VisibleRefs {
  /** The snapshot a client is shown: hidden refs left out (and HEAD, if a pattern hides `HEAD`). */
  readonly visible: RefSnapshot;
  /** The refs left out, for the wants their tips may still satisfy. */
  readonly hidden: readonly ServedRef[];
}

const VISIBLE = new DerivedKey<Map<string, VisibleRefs>>('visible refs');

/**
 * The refs of `snapshot` that `patterns` leave shown, kept with the snapshot (per pattern list) so
 * that what is derived from the view (advertised ids, ls-refs answers) is derived once. HEAD's
 * symref target is still named even when that branch is hidden, as git's find_symref does.
 */
export function hideRefs(snapshot: RefSnapshot, patterns: readonly string[]): VisibleRefs {
  if (patterns.length === 0) return { visible: snapshot, hidden: [] };
  const views = snapshot.derived.of(VISIBLE, () => new Map());
  const key = patterns.join('\n');
  let view = views.get(key);
  if (!view) {
    const hidden: ServedRef[] = [];
    const shown = (r: ServedRef): boolean => {
      if (!isHiddenRef(r.name, patterns)) return true;
      hidden.push(r);
      return false;
    };
    const head = snapshot.head && shown(snapshot.head) ? snapshot.head : null;
    const refs = snapshot.refs.filter(shown);
    view = { visible: { ...snapshot, head, refs, derived: new Derived() }, hidden };
    views.set(key, view);
  }
  return view;
}
