// Protocol v2 (gitprotocol-v2): the capability advertisement, then commands, one per request over
// smart HTTP or in a loop over a connection:
//   ls-refs      refs matching the prefixes, with symref targets, peeled tags and unborn HEAD;
//   fetch        wants (and want-refs), haves -> acknowledgments, or shallow-info, wanted-refs
//                and the packfile section once ready or done (upload_pack_v2's state machine);
//   object-info  sizes of named objects.
import { DerivedKey } from '../core/derived.js';
import { CorruptError } from '../core/errors.js';
import { fromHex } from '../core/oid.js';
import {
  DELIM_PKT, FLUSH_PKT, formatAcknowledgments, formatLsRefsLine, formatPackfileHeader, formatShallowInfo,
  formatV2CapabilityAdvertisement, formatWantedRefs, parseFetchArgs, parseLsRefsArgs, readCommandRequest,
  type Capability, type CommandRequest, type LsRefsRequest,
} from '../protocol/index.js';
import { checkFilterSupported } from './enumerate.js';
import { Negotiation } from './negotiate.js';
import { checkFilterAllowed } from './policy.js';
import { allRefs } from './refs.js';
import { sendPack } from './send-pack.js';
import { clientError, type Session } from './session.js';
import { processShallow, sendsShallowInfo, wantsShallowInfo } from './shallow.js';
import { checkWants } from './wants.js';

/** Capability lines a client may send with a command; anything else is refused, as git does. */
const REQUEST_CAPABILITIES = new Set(['agent', 'server-option', 'object-format', 'session-id']);

export function v2Capabilities(s: Session): Capability[] {
  const fetch = ['shallow', 'wait-for-done'];
  if (s.policy.allowFilter) fetch.push('filter');
  if (s.policy.allowRefInWant) fetch.push('ref-in-want');
  if (s.policy.allowSidebandAll) fetch.push('sideband-all');
  return [
    { name: 'agent', value: s.options.agent },
    s.policy.unborn === 'advertise' ? { name: 'ls-refs', value: 'unborn' } : { name: 'ls-refs' },
    { name: 'fetch', value: fetch.join(' ') },
    { name: 'server-option' },
    { name: 'object-format', value: 'sha1' },
    { name: 'object-info' },
  ];
}

export async function serveV2(s: Session): Promise<void> {
  const o = s.options;
  if (o.advertiseRefs || !o.statelessRpc) {
    s.out.write(formatV2CapabilityAdvertisement(v2Capabilities(s)));
    await s.out.drain();
  }
  if (o.advertiseRefs) return;
  // Over a connection each fetch command is a negotiation round, and so are its haves.
  let rounds = 0;
  do {
    const req = await readCommandRequest(s.input, o.limits);
    if (!req) return;
    if (req.command === 'fetch' && ++rounds > o.limits.maxRounds) throw clientError(`more than ${o.limits.maxRounds} negotiation rounds`);
    s.reset();
    await runCommand(s, req);
    await s.out.drain();
  } while (!o.statelessRpc);
}

async function runCommand(s: Session, req: CommandRequest): Promise<void> {
  for (const cap of req.capabilities) {
    if (!REQUEST_CAPABILITIES.has(cap.name)) throw clientError(`unknown capability '${cap.name}'`);
    if (cap.name === 'object-format' && cap.value !== 'sha1') throw clientError(`mismatched object format: server sha1; client ${cap.value}`);
  }
  const where = `${s.input.source}: ${req.command} request`;
  switch (req.command) {
    case 'ls-refs': return lsRefs(s, req.args, where);
    case 'fetch': return fetch(s, req.args, where);
    case 'object-info': return objectInfo(s, req.args, where);
    default: throw clientError(`invalid command '${req.command}'`);
  }
}

/** Answers to ls-refs by snapshot and request (a warm server sees the same few requests again). */
const LS_REFS_ANSWERS = new DerivedKey<Map<string, Buffer>>('ls-refs answers');
const MAX_CACHED_ANSWERS = 16;

function lsRefs(s: Session, args: string[], where: string): void {
  const req = parseLsRefsArgs(args, where, s.options.limits);
  const answers = s.refs.derived.of(LS_REFS_ANSWERS, () => new Map());
  const key = `${s.policy.unborn}\n${args.join('\n')}`;
  let answer = answers.get(key);
  if (!answer) {
    answer = lsRefsAnswer(s, req);
    if (answers.size >= MAX_CACHED_ANSWERS) answers.delete(answers.keys().next().value!);
    answers.set(key, answer);
  }
  s.out.write(answer);
}

function lsRefsAnswer(s: Session, req: LsRefsRequest): Buffer {
  const matches = (name: string) => req.refPrefixes.length === 0 || req.refPrefixes.some(p => name.startsWith(p));
  const lines: Buffer[] = [];
  if (s.refs.head) {
    if (matches('HEAD')) {
      const h = s.refs.head;
      lines.push(formatLsRefsLine({
        oid: h.oid, name: 'HEAD',
        ...(req.symrefs && h.symref ? { symrefTarget: h.symref } : {}),
        ...(req.peel && h.peeled ? { peeled: h.peeled } : {}),
      }));
    }
  } else if (req.unborn && req.symrefs && s.policy.unborn !== 'ignore' && s.refs.headTarget && matches('HEAD')) {
    lines.push(formatLsRefsLine({ oid: null, name: 'HEAD', symrefTarget: s.refs.headTarget }));
  }
  for (const r of s.refs.refs) {
    if (!matches(r.name)) continue;
    lines.push(formatLsRefsLine({
      oid: r.oid, name: r.name,
      ...(req.symrefs && r.symref ? { symrefTarget: r.symref } : {}),
      ...(req.peel && r.peeled ? { peeled: r.peeled } : {}),
    }));
  }
  lines.push(FLUSH_PKT);
  return Buffer.concat(lines);
}

async function fetch(s: Session, args: string[], where: string): Promise<void> {
  const req = parseFetchArgs(args, where, s.options.limits);
  if (req.sidebandAll) {
    if (!s.policy.allowSidebandAll) throw clientError(`unexpected line: 'sideband-all'`);
    s.out.sidebandAll = true;
  }
  if (req.filter) {
    if (!s.policy.allowFilter) throw clientError(`unexpected line: 'filter'`);
    checkFilterAllowed(s.policy, req.filter);
    checkFilterSupported(req.filter);
  }
  if (req.wantRefs.length > 0 && !s.policy.allowRefInWant) throw clientError(`unexpected line: 'want-ref ${req.wantRefs[0]}'`);
  const wantedRefs: { oid: string; name: string }[] = [];
  for (const name of req.wantRefs) {
    const ref = allRefs(s.refs).find(r => r.name === name);
    if (!ref) throw clientError(`unknown ref ${name}`);
    wantedRefs.push({ oid: ref.oid, name });
  }
  const wants = [...new Set([...req.wants, ...wantedRefs.map(r => r.oid)].map(hex => s.index(hex)))];
  const counts = s.options.counts;
  counts.wants += wants.length;
  counts.haves += req.haves.length;
  if (wants.length === 0 && !req.waitForDone) return;
  checkWants(s, wants, 'v2');
  const negotiation = new Negotiation(s, wants);
  if (req.haves.length > 0) {
    const common: string[] = [];
    for (const hex of req.haves) {
      const idx = s.index(hex);
      if (!s.exists(idx)) continue;
      common.push(hex);
      negotiation.gotOid(idx);
    }
    if (!req.done) {
      const ready = !req.waitForDone && negotiation.okToGiveUp();
      s.out.write(formatAcknowledgments(common, ready));
      if (!ready) {
        s.out.write(FLUSH_PKT);
        return;
      }
      s.out.write(DELIM_PKT);
    }
  }
  if (wantedRefs.length > 0) {
    s.out.write(formatWantedRefs(wantedRefs));
    s.out.write(DELIM_PKT);
  }
  let extraHaves: number[] = [];
  if (sendsShallowInfo(s, req)) {
    const shallow = processShallow(s, wants, req, { ownBoundary: true });
    s.out.write(formatShallowInfo(shallow.shallows, shallow.unshallows));
    s.out.write(DELIM_PKT);
    wants.push(...shallow.extraWants);
    extraHaves = shallow.extraEdges;
  }
  s.out.write(formatPackfileHeader());
  await sendPack(s, {
    wants, haves: [...negotiation.haves, ...extraHaves], filter: req.filter, includeTag: req.includeTag,
    shallow: wantsShallowInfo(req),
  }, { sideband: 'side-band-64k', progress: !req.noProgress, ofsDelta: req.ofsDelta, thin: req.thinPack });
}

function objectInfo(s: Session, args: string[], where: string): void {
  let size = false;
  const oids: string[] = [];
  for (const line of args) {
    if (line === 'size') size = true;
    else if (line.startsWith('oid ')) {
      if (oids.length >= s.options.limits.maxWants) throw clientError(`object-info: more than ${s.options.limits.maxWants} oids`);
      oids.push(line.slice(4));
    } else throw clientError(`object-info: unexpected line: '${line}'`);
  }
  // git writes these lines without a trailing LF.
  if (size) s.out.line('size');
  for (const hex of oids) {
    const id = fromHex(hex);
    if (!id) throw new CorruptError('protocol', `${where}: object-info: protocol error, expected to get oid, not '${hex}'`);
    let text = hex;
    if (size) {
      const info = s.odb.info(id);
      text += info ? ` ${info.size}` : ' ';
    }
    s.out.line(text);
  }
  s.out.write(FLUSH_PKT);
}
