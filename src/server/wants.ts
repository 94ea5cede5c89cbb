// Which wants a client may ask for: what was advertised (ref tips and their peeled objects), and
// beyond that only what the configuration allows (uploadpack.allowTipSHA1InWant,
// allowReachableSHA1InWant, allowAnySHA1InWant). Protocol v2 has no advertisement to choose from,
// so there an object reachable from some ref is accepted, as a partial clone's lazy fetch of one
// blob needs; an unreachable one still is not, unless allowAnySHA1InWant says so.
// A ref uploadpack.hideRefs hides (hidden-refs.ts) is no tip a v0 client may name: its tip, and
// what only it reaches, are refused unless allowTipSHA1InWant or allowReachableSHA1InWant lets
// hidden tips count, as git's is_our_ref does. v2 counts every ref, hidden or not (git's v2 accepts
// any object it has).
import { fromHex, OID_BYTES } from '../core/oid.js';
import { OBJ_COMMIT } from '../object/type.js';
import { ObjectWalk, SHOWN } from '../walk/object-walk.js';
import { advertised, allRefs, type ServedRef } from './refs.js';
import { clientError, type Session } from './session.js';

/**
 * `protocol` 'stateless' is v0 over smart HTTP, where a want may come from an older advertisement:
 * any object the shown refs reach is accepted there, as git's check_non_tip does.
 */
export function checkWants(s: Session, wants: readonly number[], protocol: 'v0' | 'stateless' | 'v2'): void {
  // By id text: a fetch names a few of thousands of refs, which need not enter the object table.
  const ids = advertised(s.refs);
  const hiddenCount = protocol === 'v2' || s.policy.allowTipSha1InWant || s.policy.allowReachableSha1InWant;
  const hiddenTips = hiddenCount && s.hidden.length > 0 ? new Set(s.hidden.map(r => r.oid)) : null;
  const others: number[] = [];
  for (const w of wants) {
    if (!s.exists(w)) throw clientError(`upload-pack: not our ref ${s.hex(w)}`);
    const hex = s.hex(w);
    if (!ids.has(hex) && !hiddenTips?.has(hex)) others.push(w);
  }
  if (others.length === 0 || s.policy.allowAnySha1InWant) return;
  if (!(protocol !== 'v0' || s.policy.allowReachableSha1InWant)) throw clientError(`upload-pack: not our ref ${s.hex(others[0]!)}`);
  const tips = hiddenCount ? [...allRefs(s.refs), ...s.hidden] : allRefs(s.refs);
  const unreachable = unreachableFromRefs(s, others, tips);
  if (unreachable >= 0) throw clientError(`upload-pack: not our ref ${s.hex(unreachable)}`);
}

/** The first of `objects` that no ref reaches, or -1. Commits need only the commit graph. */
function unreachableFromRefs(s: Session, objects: readonly number[], refs: readonly ServedRef[]): number {
  const tips = refs.map(r => fromHex(r.oid)!);
  const commits = objects.filter(o => s.typeOf(o) === OBJ_COMMIT);
  if (commits.length > 0) {
    const walk = new ObjectWalk(s.odb);
    for (const c of commits) walk.add(s.oid(c), '', false);
    for (const t of tips) walk.add(t, '', true);
    const shown = walk.commits();
    if (shown.length > 0) {
      const first = walk.ids.keys.subarray(shown[0]! * OID_BYTES, shown[0]! * OID_BYTES + OID_BYTES);
      return s.indexOf(first, 0);
    }
  }
  const rest = objects.filter(o => s.typeOf(o) !== OBJ_COMMIT);
  if (rest.length === 0) return -1;
  const walk = new ObjectWalk(s.odb);
  for (const t of tips) walk.add(t, '', false);
  walk.enumerate({});
  for (const o of rest) {
    const idx = walk.ids.get(s.walk.ids.keys, o * OID_BYTES);
    if (idx < 0 || !(walk.flags[idx]! & SHOWN)) return o;
  }
  return -1;
}
