// Protocol v0/v1 (gitprotocol-pack), in upload-pack.c's order:
//   advertisement (skipped by a stateless POST) -> want list with capabilities, shallow and deepen
//   lines -> shallow/unshallow answer -> have rounds answered with ACK/NAK (get_common_commits)
//   -> pack.
// Stateless RPC (smart HTTP) is one round per request: the client repeats its wants and the haves
// found common so far, and the server exits after answering a round that did not end the talk.
import { DerivedKey } from '../core/derived.js';
import { CorruptError } from '../core/errors.js';
import {
  formatAck, formatCapabilityList, formatNak, formatRefAdvertisement, formatShallow, formatUnshallow, FLUSH_PKT, hasCapability,
  readUploadRequest, type Capability,
} from '../protocol/index.js';
import { at, lineText, parseOid } from '../protocol/text.js';
import { checkFilterSupported } from './enumerate.js';
import { Negotiation } from './negotiate.js';
import { checkFilterAllowed } from './policy.js';
import { allRefs } from './refs.js';
import { sendPack } from './send-pack.js';
import { clientError, type Session } from './session.js';
import { processShallow, wantsShallowInfo } from './shallow.js';
import { checkWants } from './wants.js';

const BASE_CAPABILITIES = ['multi_ack', 'thin-pack', 'side-band', 'side-band-64k', 'ofs-delta', 'shallow',
  'deepen-since', 'deepen-not', 'deepen-relative', 'no-progress', 'include-tag', 'multi_ack_detailed'];

export function v0Capabilities(s: Session): Capability[] {
  const caps: Capability[] = BASE_CAPABILITIES.map(name => ({ name }));
  if (s.policy.allowTipSha1InWant) caps.push({ name: 'allow-tip-sha1-in-want' });
  if (s.policy.allowReachableSha1InWant) caps.push({ name: 'allow-reachable-sha1-in-want' });
  // Only a smart HTTP client (which reads --advertise-refs output) may skip "done".
  if (s.options.advertiseRefs) caps.push({ name: 'no-done' });
  if (s.refs.head && s.refs.headTarget) caps.push({ name: 'symref', value: `HEAD:${s.refs.headTarget}` });
  if (s.policy.allowFilter) caps.push({ name: 'filter' });
  caps.push({ name: 'object-format', value: 'sha1' }, { name: 'agent', value: s.options.agent });
  return caps;
}

/**
 * Advertisements by snapshot and everything else they say (capabilities, version line, shallow
 * lines): formatting 1,675 refs cost a warm worker 3 ms of every v0 fetch; a warm server sees the
 * same few variants again.
 */
const ADVERTISEMENTS = new DerivedKey<Map<string, Buffer>>('v0 advertisements');
const MAX_CACHED_ADVERTISEMENTS = 8;

function advertisement(s: Session): Buffer {
  const caps = v0Capabilities(s);
  const version1 = s.options.version === 1;
  const cached = s.refs.derived.of(ADVERTISEMENTS, () => new Map());
  const key = `${version1}\n${formatCapabilityList(caps)}\n${s.shallowHere.join(' ')}`;
  let answer = cached.get(key);
  if (!answer) {
    const refs = allRefs(s.refs).map(r => (r.peeled ? { name: r.name, oid: r.oid, peeled: r.peeled } : { name: r.name, oid: r.oid }));
    answer = formatRefAdvertisement(refs, caps, { version1, shallows: s.shallowHere });
    if (cached.size >= MAX_CACHED_ADVERTISEMENTS) cached.delete(cached.keys().next().value!);
    cached.set(key, answer);
  }
  return answer;
}

export async function serveV0(s: Session): Promise<void> {
  const o = s.options;
  if (o.advertiseRefs || !o.statelessRpc) {
    s.out.write(advertisement(s));
    await s.out.drain();
  }
  if (o.advertiseRefs) return;
  const req = await readUploadRequest(s.input, o.limits);
  if (!req) return;
  const caps = req.capabilities;
  if (req.filter) {
    if (!s.policy.allowFilter) throw clientError('filter requested, but uploadpack.allowFilter is not set');
    checkFilterAllowed(s.policy, req.filter);
    checkFilterSupported(req.filter);
  }
  const wants = [...new Set(req.wants.map(hex => s.index(hex)))];
  o.counts.wants += wants.length;
  // A stateless client's wants come from an advertisement another request made: refs may have
  // moved since, and git accepts any want still reachable from them (upload-pack.c check_non_tip).
  checkWants(s, wants, o.statelessRpc ? 'stateless' : 'v0');
  let extraHaves: number[] = [];
  if (wantsShallowInfo(req)) {
    const shallow = processShallow(s, wants, req);
    if (shallow.deepened) {
      for (const hex of shallow.shallows) s.out.write(formatShallow(hex));
      for (const hex of shallow.unshallows) s.out.write(formatUnshallow(hex));
      s.out.write(FLUSH_PKT);
    }
    wants.push(...shallow.extraWants);
    extraHaves = shallow.extraEdges;
  }
  // A stateless client that deepens sends its wants alone first, to read the shallow list.
  if ((await s.input.peek()) === null) return;
  const negotiation = new Negotiation(s, wants);
  if (!(await negotiate(s, negotiation, caps))) return;
  const sideband = hasCapability(caps, 'side-band-64k') ? 'side-band-64k' : hasCapability(caps, 'side-band') ? 'side-band' : null;
  await sendPack(s, {
    wants, haves: [...negotiation.haves, ...extraHaves], filter: req.filter, includeTag: hasCapability(caps, 'include-tag'),
    shallow: wantsShallowInfo(req),
  }, {
    sideband, progress: !hasCapability(caps, 'no-progress'),
    ofsDelta: hasCapability(caps, 'ofs-delta'), thin: hasCapability(caps, 'thin-pack'),
  });
}

/**
 * get_common_commits: reads have lines round by round and answers each as git does for the
 * client's multi_ack mode. Returns true when a pack should follow, false when the client went
 * away or (stateless) this request's round is over.
 */
async function negotiate(s: Session, neg: Negotiation, caps: Capability[]): Promise<boolean> {
  const multiAck = hasCapability(caps, 'multi_ack_detailed') ? 2 : hasCapability(caps, 'multi_ack') ? 1 : 0;
  const noDone = hasCapability(caps, 'no-done');
  const out = s.out;
  let lastHex = '';
  let gotCommon = false, gotOther = false, sentReady = false;
  const { maxHaves, maxRounds } = s.options.limits;
  // maxHaves bounds one round, as RequestLimits has it (and as it bounds one v2 request); the
  // rounds are bounded by maxRounds. The access log's count is the connection's.
  let inRound = 0, rounds = 0;
  for (;;) {
    const p = await s.input.read();
    if (p === null || p.type === 'flush') {
      if (++rounds > maxRounds) throw clientError(`more than ${maxRounds} negotiation rounds`);
      if (multiAck === 2 && gotCommon && !gotOther && neg.okToGiveUp()) {
        sentReady = true;
        out.write(formatAck(lastHex, 'ready'));
      }
      if (neg.haves.length === 0 || multiAck) out.write(formatNak());
      if (noDone && sentReady) {
        out.write(formatAck(lastHex));
        return true;
      }
      await out.drain();
      if (s.options.statelessRpc || p === null) return false;
      gotCommon = gotOther = false;
      inRound = 0;
      continue;
    }
    const where = at(s.input, p);
    if (p.type !== 'data') throw new CorruptError('protocol', `${where}: expected have, done or flush, got a ${p.type} packet`);
    const line = lineText(p.payload, where);
    if (line === 'done') {
      if (neg.haves.length > 0) {
        if (multiAck) out.write(formatAck(lastHex));
      } else {
        out.write(formatNak());
      }
      return true;
    }
    if (!line.startsWith('have ')) throw clientError(`expected SHA1 list, got '${line}'`);
    if (++inRound > maxHaves) throw clientError(`more than ${maxHaves} have lines in one round`);
    s.options.counts.haves++;
    const hex = parseOid(line.slice(5), where);
    const idx = s.index(hex);
    const got = neg.gotOid(idx);
    if (got < 0) {
      gotOther = true;
      if (multiAck && neg.okToGiveUp()) {
        if (multiAck === 2) {
          sentReady = true;
          out.write(formatAck(hex, 'ready'));
        } else {
          out.write(formatAck(hex, 'continue'));
        }
      }
    } else {
      gotCommon = true;
      lastHex = hex;
      if (multiAck === 2) out.write(formatAck(hex, 'common'));
      else if (multiAck) out.write(formatAck(hex, 'continue'));
      else if (neg.haves.length === 1) out.write(formatAck(hex));
    }
  }
}

