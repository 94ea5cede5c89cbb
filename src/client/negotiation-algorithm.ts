// fetch.negotiationAlgorithm, as git's prepare_repo_settings reads it: `consecutive` (git's
// default negotiator, negotiator.ts), `skipping` (skipping-negotiator.ts; the default under
// feature.experimental), `noop` (no haves: the server sends everything the wants reach) or
// `default`; any other value stops a fetch before it starts.
import type { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import type { ObjectStore } from '../odb/object-store.js';
import { ConsecutiveNegotiator, type Negotiator } from './negotiator.js';
import { SkippingNegotiator } from './skipping-negotiator.js';

export type NegotiationAlgorithm = 'consecutive' | 'skipping' | 'noop';

export function negotiationAlgorithm(config: Config): NegotiationAlgorithm {
  const fallback = config.getBool('feature', null, 'experimental') ? 'skipping' : 'consecutive';
  const value = config.get('fetch', null, 'negotiationalgorithm');
  if (value === undefined) return fallback;
  const name = value.toLowerCase();
  if (name === 'consecutive' || name === 'skipping' || name === 'noop') return name;
  if (name === 'default') return fallback;
  throw new GitError('client', 'bad-config', `unknown fetch negotiation algorithm '${value}'`);
}

/**
 * The negotiator of `algorithm`; null for noop, which offers nothing. `ahead`: the local refs'
 * values and the advertised ones, for what git parses before it negotiates, which orders the
 * skipping negotiator's walk (none when deepening, as git's fetch-pack then skips it).
 */
export function makeNegotiator(algorithm: NegotiationAlgorithm, odb: ObjectStore, shallow: ReadonlySet<string>,
  ahead: { localTips: readonly string[]; advertised: readonly string[] } | null): Negotiator | null {
  if (algorithm === 'noop') return null;
  if (algorithm === 'consecutive') return new ConsecutiveNegotiator(odb, shallow);
  const skipping = new SkippingNegotiator(odb, shallow);
  if (ahead) skipping.parsedAhead(ahead.localTips, ahead.advertised);
  return skipping;
}
