// Push, top to bottom (git's builtin/push.c, transport.c):
//   which remote and URLs (../remotes.ts) -> which refspecs: the command line's, remote.<name>.push,
//   else push.default's (refspecs-to-push.ts) -> for each URL, on to the next after one fails
//   (git's do_push; the push then fails at the end): connect to its receive-pack, read
//   the advertisement, match refspecs against local and remote refs (refspec.ts) and
//   --follow-tags -> decide each update (status.ts, leases) -> send commands, options and the
//   thin pack, read the report (send-pack.ts) -> report (report.ts) -> --set-upstream and the
//   remote-tracking refs.
import { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { readShallow } from '../shallow-file.js';
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_TAG } from '../../object/type.js';
import type { Progress } from '../../core/progress.js';
import { readRefAdvertisement, findCapability, FLUSH_PKT, type AdvertisedRef } from '../../protocol/index.js';
import { firstPacket } from '../session.js';
import { checkRefPath, type RefStore } from '../../refs/index.js';
import type { Repository } from '../../repository/repository.js';
import { anonymizeUrl, connect, parseRemoteUrl, type Connection, type ConnectOptions } from '../../transport/index.js';
import { reachableSubset } from '../ancestry.js';
import { abbrevLength } from '../fetch-report.js';
import { peeledValue } from '../peel.js';
import { parsePushRefspec, parseRefspec, trackingRefFor, type PushRefspec } from '../../refs/refspec.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from '../transport-config.js';
import { defaultPushRemote, pushUrlsOf, remoteGet, type Remote } from '../../repository/remotes.js';
import { installBranchConfig } from '../../repository/upstream.js';
import { formatPushStatus, pushAdvice } from './report.js';
import { checkPushSources, matchPushRefs, refsNamed, type LocalRef, type PushTarget } from './refspec.js';
import { prePush } from './pre-push.js';
import { refspecsToPush } from './refspecs-to-push.js';
import { sendPack } from './send-pack.js';
import { isFailure, leaseExpectation, pushStatus, type Lease, type PushRef } from './status.js';
import { branchOf } from '../../refs/branch-name.js';

export interface PushOptions {
  /** A configured remote's name or an address; default as git chooses (pushRemote, pushDefault, ...). */
  readonly remote?: string;
  /** As on git's command line: `tag <name>` is one, and a branch named alone is mapped (refspecs-to-push.ts). */
  readonly refspecs?: readonly string[];
  readonly force?: boolean;
  readonly leases?: readonly Lease[];
  /**
   * With a lease taken from a remote-tracking ref, also refuse unless that ref's value was
   * integrated here (git's --force-if-includes); default push.useForceIfIncludes.
   */
  readonly forceIfIncludes?: boolean;
  /** All refs or none (git 2.39 has no setting for it: only --atomic). */
  readonly atomic?: boolean;
  /** Every refspec names a ref to delete. */
  readonly delete?: boolean;
  /** --prune: delete remote refs a pattern refspec covers that have no local counterpart. */
  readonly prune?: boolean;
  /** --mirror (or remote.<name>.mirror): every ref under refs/, forced, and pruned. */
  readonly mirror?: boolean;
  readonly tags?: boolean;
  /** By default push.followTags. */
  readonly followTags?: boolean;
  /** -o; when there are none, push.pushOption's values (as git, even after --no-push-option). */
  readonly pushOptions?: readonly string[];
  readonly dryRun?: boolean;
  /** --no-verify: the pre-push hook is not run. */
  readonly noVerify?: boolean;
  readonly setUpstream?: boolean;
  readonly porcelain?: boolean;
  readonly verbose?: boolean;
  readonly quiet?: boolean;
  /** Progress meters (Enumerating, Counting, Compressing, Writing objects); none when absent. */
  readonly progress?: Progress;
  /** The git --receive-pack program. */
  readonly receivePack?: string;
  /** stderr and stdout, as git writes them. */
  readonly log?: (text: string) => void;
  readonly out?: (text: string) => void;
  /** The server's side-band 2 text, whole lines (shown as "remote: ..."). */
  readonly onRemote?: (text: string) => void;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly transport?: ConnectOptions;
}

export interface PushResult {
  /** Every URL's refs with what became of them. */
  readonly refs: PushRef[];
  /** Some update failed (git exits 1). */
  readonly failed: boolean;
}

export async function push(repo: Repository, options: PushOptions = {}): Promise<PushResult> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const out = options.out ?? (() => {});
  const config = repo.remotesConfig(env);
  const refStore = repo.openRefs(env, config);
  const headRef = refStore.headTarget();
  const branch = branchOf(headRef);
  const remote = options.remote !== undefined ? remoteGet(config, repo.commonDir, options.remote)
    : defaultPushRemote(config, repo.commonDir, branch);
  if (remote === null) {
    throw new GitError('client', 'no-remote', 'No configured push destination.\nEither specify the URL from the command-line or configure a remote repository using\n\n'
      + '    git remote add <name> <url>\n\nand then push using the remote name\n\n    git push <name>\n');
  }
  const mirror = options.mirror ?? remote.mirror;
  if (mirror && options.refspecs?.length) throw new GitError('client', 'bad-refspec', '--mirror can\'t be combined with refspecs');
  const { specs, setUpstream } = mirror ? { specs: [parsePushRefspec('+refs/*:refs/*')], setUpstream: false }
    : refspecsToPush(config, remote, options, branch, (name) => refsNamed(refStore, name));
  const followTags = options.followTags ?? config.getBool('push', null, 'followtags') ?? false;
  const pushOptions = options.pushOptions?.length ? options.pushOptions : configuredPushOptions(config);
  const base = { ...connectOptionsFromConfig(config, env), ...options.transport };
  const receivePack = options.receivePack ?? remote.receivePack;
  const connectOptions: ConnectOptions = {
    ...base,
    service: 'git-receive-pack',
    // Push has no protocol v2: receive-pack answers a v2 request in v0, so v0 is what is asked for.
    protocolVersion: (base.protocolVersion ?? 2) === 1 ? 1 : 0,
    ...(receivePack ? { receivePack } : {}),
  };
  const all: PushRef[] = [];
  let failed = false;
  for (const url of pushUrlsOf(remote)) {
    const result = await pushTo(repo, refStore, config, remote, url, specs,
      { ...options, mirror, followTags, pushOptions, setUpstream: (options.setUpstream ?? false) || setUpstream }, connectOptions, headRef, log, out);
    all.push(...result.refs);
    failed ||= result.failed;
  }
  return { refs: all, failed };
}

async function pushTo(repo: Repository, refStore: RefStore, config: Config, remote: Remote, url: string, specs: PushRefspec[],
  options: PushOptions, connectOptions: ConnectOptions, headRef: string | null, log: (t: string) => void, out: (t: string) => void,
): Promise<PushResult> {
  const remoteUrl = parseRemoteUrl(url, options.cwd ?? process.cwd());
  // Said without its user name and password, as git's push says it (transport_anonymize_url).
  const shown = anonymizeUrl(url);
  if (options.verbose) log(`Pushing to ${shown}\n`);
  checkProtocolAllowed(config, connectOptions.env ?? process.env, remoteUrl);
  // git's check_push_refs: a source that names nothing fails the push before the remote is contacted.
  const sourceErrors = checkPushSources(repo, refStore, specs);
  if (sourceErrors.length > 0) return failedBeforeSending(sourceErrors, shown, log);
  const conn = await connect(remoteUrl, connectOptions);
  const onAbort = () => conn.abort();
  options.signal?.addEventListener('abort', onAbort);
  try {
    // What needs no answer is done while the remote's receive-pack starts: the local refs (all of
    // packed-refs) and the object database's packs.
    const local = localRefs(refStore);
    repo.odb.packedObjectCount();
    const first = await firstPacket(conn.reader, 'git-receive-pack');
    if (first.type === 'data' && first.payload.toString('latin1').replace(/\n$/, '') === 'version 2') {
      throw new GitError('client', 'unsupported', 'support for protocol v2 not implemented yet');
    }
    const adv = await readRefAdvertisement(conn.reader);
    const format = findCapability(adv.capabilities, 'object-format')?.value;
    if (format !== undefined && format !== 'sha1') {
      throw new GitError('client', 'unsupported', "the receiving end does not support this repository's hash algorithm");
    }
    const remoteRefs = adv.refs.filter((r) => r.name !== '.have');
    const { targets, errors, fatal } = matchPushRefs(repo, local, remoteRefs, specs, options.force ?? false, (options.prune ?? false) || (options.mirror ?? false));
    if (fatal !== undefined) {
      for (const e of errors) log(`error: ${e}\n`);
      throw new GitError('client', 'bad-refspec', fatal);
    }
    if (errors.length > 0) {
      await hangUp(conn);
      return failedBeforeSending(errors, shown, log);
    }
    if (options.followTags) targets.push(...tagsToFollow(repo, local, remoteRefs, targets));
    const tracking = (dst: string) => trackingRef(remote, dst);
    const forceIfIncludes = options.forceIfIncludes ?? config.getBool('push', null, 'useforceifincludes') ?? false;
    const refs = targets.map((t) => pushStatus(repo, refStore, t, leaseExpectation(repo, options.leases ?? [], t.dst, (d) => {
      const name = tracking(d);
      const oid = name ? refStore.resolve(name)?.oid ?? null : null;
      return name && oid ? { name, oid } : null;
    }), forceIfIncludes));
    if (!options.noVerify && !await prePush(repo, config, options.env ?? process.env, remote.name, url, refs, out, log)) {
      await hangUp(conn);
      return failedBeforeSending([], shown, log);
    }
    const haves = adv.refs.filter((r) => r.oid !== ZERO_HEX);
    const sent = await sendPack(conn, adv.capabilities, refs, repo.odb, haves, {
      atomic: options.atomic ?? false,
      pushOptions: options.pushOptions?.length ? options.pushOptions : null,
      dryRun: options.dryRun ?? false,
      quiet: (options.quiet ?? false) || !options.progress,
      progress: options.progress,
      onTotal: options.progress ? log : undefined,
      onRemote: options.onRemote,
      signal: options.signal,
      shallows: readShallow(repo.commonDir),
    });
    await conn.close();
    if (sent.report?.unpackError) log(`error: unpack failed: ${sent.report.unpackError}\n`);
    const abbrev = abbrevLength(repo.odb.packedObjectCount());
    const porcelain = options.porcelain ?? false;
    const failed = refs.some((r) => isFailure(r.status));
    const text = formatPushStatus(shown, refs, { porcelain, verbose: options.verbose ?? false, abbrev });
    if (porcelain) out(text);
    else if (!(options.quiet ?? false) || failed) log(text);
    // git's transport_push: upstreams (or, in a dry run, what they would be) before the
    // remote-tracking refs and porcelain's closing line.
    if (options.setUpstream) setUpstream(config, refStore, remote, refs, options.dryRun ?? false, out);
    if (!options.dryRun) updateTracking(remote, refStore, refs, options.verbose ? log : null);
    if (porcelain) out('Done\n');
    else if (!failed && !refs.some((r) => r.status !== 'up-to-date') && !(options.quiet ?? false)) log('Everything up-to-date\n');
    if (failed) {
      log(`error: failed to push some refs to '${shown}'\n`);
      log(pushAdvice(refs, headRef));
    }
    return { refs, failed };
  } catch (e) {
    conn.abort();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * A push to one URL that ends before anything is sent (git's transport_push returning -1): its
 * errors, then git's line for the URL; the push goes on to the remote's next URL.
 */
function failedBeforeSending(errors: readonly string[], shown: string, log: (t: string) => void): PushResult {
  for (const e of errors) log(`error: ${e}\n`);
  log(`error: failed to push some refs to '${shown}'\n`);
  return { refs: [], failed: true };
}

/** Nothing is sent: the server is told the push is over, as git's disconnect does. */
async function hangUp(conn: Connection): Promise<void> {
  if (!conn.stateless) await conn.send(FLUSH_PKT);
  await conn.close();
}

function localRefs(refStore: RefStore): LocalRef[] {
  const out: LocalRef[] = [];
  const head = refStore.head();
  if (head.oid) out.push({ name: 'HEAD', oid: head.oid });
  for (const r of refStore.list('refs/')) out.push({ name: r.name, oid: r.oid });
  return out;
}

/** push.pushOption's values; an empty one drops those before it (a lower-priority file's). */
function configuredPushOptions(config: Config): string[] {
  const values = config.getAll('push', null, 'pushoption');
  return values.slice(values.lastIndexOf('') + 1);
}

/**
 * --follow-tags: annotated tags the remote does not have whose target is reachable from what the
 * remote will have after the push: the commits pushed, and what its other refs (and those
 * deleted) hold now, as far as they are here (git's add_missing_tags), in local ref order.
 */
function tagsToFollow(repo: Repository, local: readonly LocalRef[], remote: readonly AdvertisedRef[], targets: readonly PushTarget[]): PushTarget[] {
  const onRemote = new Set(remote.map((r) => r.name));
  const pushing = new Set(targets.map((t) => t.dst));
  const kept = remote.filter((r) => !pushing.has(r.name)).map((r) => r.oid);
  const tips = [...kept, ...targets.map((t) => t.newOid !== ZERO_HEX ? t.newOid : t.oldOid)]
    .filter((oid) => oid !== ZERO_HEX).map((oid) => peeledValue(repo.odb, oid) ?? oid);
  const missing: { ref: LocalRef; peeled: string }[] = [];
  for (const r of local) {
    if (!r.name.startsWith('refs/tags/') || onRemote.has(r.name) || pushing.has(r.name)) continue;
    if (repo.odb.info(fromHex(r.oid)!)?.type !== OBJ_TAG) continue;
    const peeled = peeledValue(repo.odb, r.oid);
    if (peeled !== null) missing.push({ ref: r, peeled });
  }
  const reached = reachableSubset(repo.odb, missing.map((m) => m.peeled), tips);
  return missing.filter((m) => reached.has(m.peeled))
    .map(({ ref }) => ({ src: ref.name, dst: ref.name, newOid: ref.oid, oldOid: ZERO_HEX, force: false }));
}

/** The remote-tracking ref remote.<name>.fetch stores the remote's `dst` in, if any. */
function trackingRef(remote: Remote, dst: string): string | null {
  const name = trackingRefFor(remote.fetch.map(parseRefspec), dst);
  // A destination outside refs/ (`refs/heads/x:x`) git writes as the file .git/x; tsgit writes refs
  // only where refs belong, so it keeps no remote-tracking ref for it.
  return name !== null && checkRefPath(name) === null ? name : null;
}

/** git's transport_update_tracking_ref: what the remote now has, in its remote-tracking refs, each said to `verbose`. */
function updateTracking(remote: Remote, refStore: RefStore, refs: readonly PushRef[], verbose: ((text: string) => void) | null): void {
  for (const r of refs) {
    if (r.status !== 'ok' && r.status !== 'up-to-date') continue;
    const name = trackingRef(remote, r.dst);
    if (!name) continue;
    verbose?.(`updating local tracking ref '${name}'\n`);
    try {
      if (r.newOid === ZERO_HEX) refStore.delete(name);
      else refStore.update(name, r.newOid, { reflogMessage: 'update by push' });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
    }
  }
}

/**
 * -u (git's set_upstreams): branch.<name>.remote and .merge (and .rebase, as
 * branch.autoSetupRebase says) for every local branch pushed to a branch, a symbolic source (HEAD)
 * followed to the branch it names; a dry run says what it would set. The remote is named as git names it (an address as given, not as insteadOf rewrites it),
 * and so in the message.
 */
function setUpstream(config: Config, refStore: RefStore, remote: Remote, refs: readonly PushRef[], dryRun: boolean, out: (t: string) => void): void {
  for (const r of refs) {
    if ((r.status !== 'ok' && r.status !== 'up-to-date') || r.src === null || r.newOid === ZERO_HEX) continue;
    // A source that is no ref's name (HEAD~1, an id) resolves to nothing, as in git.
    const chain = checkRefPath(r.src) === null ? refStore.resolve(r.src)?.chain ?? [] : [];
    const followed = chain.length > 1 ? chain[chain.length - 1]! : r.src;
    const local = followed.startsWith('refs/heads/') ? followed : r.src;
    if (!local.startsWith('refs/heads/') || !r.dst.startsWith('refs/heads/')) continue;
    const branch = local.slice(11);
    if (dryRun) {
      out(`Would set upstream of '${branch}' to '${r.dst.slice(11)}' of '${remote.name}'\n`);
      continue;
    }
    // git's install_branch_config, verbose: branch.autoSetupRebase applies and is said.
    out(installBranchConfig(config, branch, remote.name, [r.dst]).out);
  }
}
