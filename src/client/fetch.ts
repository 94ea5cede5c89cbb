// Fetch, top to bottom (git's builtin/fetch.c):
//   which remote and refspecs -> transport.connect -> list refs -> map them to local refs
//   (+ tags to follow) -> negotiate with local history and fetch the pack into index-pack
//   -> shallow file (or, from a shallow remote, refs rejected for needing new roots) -> tags
//   that arrived but were not asked for (backfill) -> prune
//   -> update refs (fast-forward, forced, or rejected) -> FETCH_HEAD -> report
// Refs are touched only after the pack is stored, so a failed fetch changes no ref.
import type { Progress } from '../core/progress.js';
import fs from 'node:fs';
import path from 'node:path';
import { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import { fromHex } from '../core/oid.js';
import { OBJ_COMMIT } from '../object/type.js';
import { deepens, INFINITE_DEPTH, NO_DEEPEN, type FilterSpec, type HistoryShape } from '../protocol/index.js';
import { reflogAction, type RefStore, type RefTransaction } from '../refs/index.js';
import { checkedOutBranches } from '../repository/linked-worktrees.js';
import type { Repository } from '../repository/repository.js';
import { anonymizeUrl, parseRemoteUrl, type ConnectOptions } from '../transport/index.js';
import { isAncestor } from './ancestry.js';
import { incompleteTips, missingHistory, refuseIfMissing } from './connected.js';
import { fetchPack, type ShallowLines } from './fetch-pack.js';
import { abbrevLength, fetchHeadLine, fetchHeadUrl, formatReport, reportFormat, type RefLine, type ReportFormat } from './fetch-report.js';
import { makeNegotiator, negotiationAlgorithm } from './negotiation-algorithm.js';
import { negotiationTips } from './negotiation-tips.js';
import { fetchFilter, promisorRemotes } from './partial-clone.js';
import { peeledValue } from './peel.js';
import { mapPattern, parseRefspec, type Refspec } from '../refs/refspec.js';
import { checkRemoteRefNames, mapRefs, refPrefixes, type MappedRef } from './refspec.js';
import { defaultRemote, remoteGet, type Remote } from '../repository/remotes.js';
import { RemoteSession, type RemoteRef } from './session.js';
import { readShallow, updateShallow } from './shallow-file.js';
import { setUpstream } from './set-upstream.js';
import { assignRoots, newRoots, type NewRoots } from './shallow-update.js';
import { fetchKeepsFrom, receivedFsck, storePack, type PackStored } from './store-pack.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from './transport-config.js';
import { branchOf } from '../refs/branch-name.js';

export interface FetchOptions {
  /** A configured remote's name or an address; default: the current branch's remote, else origin. */
  readonly remote?: string;
  /** Refspecs from the command line; default: remote.<name>.fetch. */
  readonly refspecs?: readonly string[];
  /**
   * Deepen or shorten the history (--depth, --deepen, --shallow-since, --shallow-exclude); default
   * NO_DEEPEN. A relative shape needs a depth.
   */
  readonly shape?: HistoryShape;
  /**
   * The filter to ask the server for (git's --filter), which also makes the remote a promisor
   * remote with it as its filter, when it has none yet (partial-clone.ts); null asks for
   * everything (--no-filter). Default: the remote's partialclonefilter, when it has one.
   */
  readonly filter?: FilterSpec | null;
  /**
   * Fetch every object the refs reach, as a clone would, offering nothing we have (git's
   * --refetch: a changed filter applied to what is here). The packs here stay as they are, where
   * git's auto maintenance would then repack them.
   */
  readonly refetch?: boolean;
  /** Make a shallow repository complete (--unshallow); not with a depth. */
  readonly unshallow?: boolean;
  /**
   * From a shallow remote, take refs whose history stops at boundary commits that are not ours,
   * adding those to .git/shallow (git's --update-shallow); otherwise such refs are rejected.
   */
  readonly updateShallow?: boolean;
  /**
   * Delete remote-tracking refs whose remote ref is gone; default remote.<name>.prune, else
   * fetch.prune, else false (git's --[no-]prune).
   */
  readonly prune?: boolean;
  /**
   * Without refspecs given, also fetch (and with prune, prune) every tag, as refs/tags/*:refs/tags/*:
   * beside a configured remote's own refspecs, or as the one refspec for an address (as if given);
   * default remote.<name>.pruneTags, else fetch.pruneTags, else false (git's --[no-]prune-tags).
   */
  readonly pruneTags?: boolean;
  /** Fetch every tag (git's --tags). */
  readonly tags?: boolean;
  readonly noTags?: boolean;
  /** Update even refs whose update is not a fast-forward. */
  readonly force?: boolean;
  /**
   * Update even a branch that a work tree has checked out (git's --update-head-ok, for pull),
   * which is otherwise refused before anything is fetched: its work tree would no longer match.
   */
  readonly updateHeadOk?: boolean;
  /**
   * Fetch the objects and report what would change, changing no ref and writing no FETCH_HEAD
   * (git's --dry-run).
   */
  readonly dryRun?: boolean;
  /** Whether FETCH_HEAD is written (default true; git's --no-write-fetch-head), and added to rather than replaced (--append). */
  readonly fetchHead?: 'write' | 'append' | 'none';
  /**
   * Every ref update and prune in one transaction, FETCH_HEAD written only once it is made: a
   * rejected ref, or one that cannot be locked, leaves every ref and FETCH_HEAD as they were
   * (git's --atomic).
   */
  readonly atomic?: boolean;
  /**
   * Refspecs that say where the refspecs given map to remote-tracking refs, in the remote's
   * configured refspecs' place (git's --refmap; an empty one maps nothing). Only with refspecs.
   */
  readonly refmap?: readonly string[];
  /**
   * Make the one ref fetched for merging the current branch's upstream (git's --set-upstream),
   * warning, as git does, when there is none, several, or no branch checked out.
   */
  readonly setUpstream?: boolean;
  /**
   * What is offered as haves: the history of these commits (ids, revisions or ref globs) in place
   * of every ref's (git's --negotiation-tip; negotiation-tips.ts).
   */
  readonly negotiationTips?: readonly string[];
  /** Sent as `server-option` with every protocol v2 command (git's -o); refused by a v0 server, as git refuses it. */
  readonly serverOptions?: readonly string[];
  /**
   * fsck every received object, and, unless filtering (whose history is walked once the pack is
   * in), check that everything they point to is there, short of a deepen's new boundary. Default:
   * as fetch.fsckObjects and transfer.fsckObjects say, on when neither is set.
   */
  readonly strict?: boolean;
  /** Meters for receiving the pack and resolving deltas (the CLI draws them on stderr). */
  readonly progress?: Progress;
  readonly onRemoteProgress?: (text: string) => void;
  /** The ref report and warnings, as git prints them to stderr. */
  readonly log?: (message: string) => void;
  /** Show the ref report (git's default; off with -q, rejected refs too: only warnings are said). */
  readonly report?: boolean;
  /** Show refs that were already up to date in the report too (-v). */
  readonly verbose?: boolean;
  /** Start of reflog messages (git's GIT_REFLOG_ACTION, "fetch <args>"). */
  readonly reflogAction?: string;
  /** Runs once index-pack has stored each pack, as CloneOptions.onPackStored. */
  readonly onPackStored?: () => void;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly transport?: ConnectOptions;
}

export interface FetchResult {
  /** Every ref line, shown or not (up-to-date refs have code '='). */
  readonly lines: RefLine[];
  readonly rejected: number;
  readonly objects: number;
  /** With atomic: what stopped the transaction as it was made (a ref it could not lock); git exits 254 then. */
  readonly transactionError: GitError | null;
}

type TagMode = 'auto' | 'all' | 'none';

/** git's TAG_REFSPEC: every tag, to a tag of the same name. */
const TAG_REFSPEC = 'refs/tags/*:refs/tags/*';

/** FETCH_HEAD's view of a ref: for merging, not for merging, or not written there at all. */
type FetchHeadStatus = 'merge' | 'not-for-merge' | 'ignore';
const STATUS_ORDER: readonly FetchHeadStatus[] = ['merge', 'not-for-merge', 'ignore'];

interface RoundStart {
  readonly shallows: string[];
  readonly shallowSet: ReadonlySet<string>;
  readonly incomplete: ReadonlySet<string>;
}

interface Target extends MappedRef {
  status: FetchHeadStatus;
  /** Needs new shallow roots without updateShallow: neither stored nor in FETCH_HEAD. */
  rejectedShallow?: boolean;
}

/** The shape asked of the server: `shape`, or --unshallow as a depth, checked as git's fetch checks these options. */
function historyShape(repo: Repository, o: FetchOptions): HistoryShape {
  const shape = o.shape ?? NO_DEEPEN;
  if (shape.deepenRelative && shape.depth === 0) throw new GitError('client', 'invalid-argument', 'deepenRelative needs a depth');
  if (!o.unshallow) return shape;
  if (shape.depth !== 0) throw new GitError('client', 'usage', "options '--depth' and '--unshallow' cannot be used together");
  if (readShallow(repo.commonDir).length === 0) throw new GitError('client', 'usage', '--unshallow on a complete repository does not make sense');
  return { ...shape, depth: INFINITE_DEPTH };
}

function interrupted(): GitError {
  return new GitError('client', 'interrupted', 'fetch interrupted');
}

export async function fetch(repo: Repository, options: FetchOptions = {}): Promise<FetchResult> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const config = repo.remotesConfig(env);
  const refStore = repo.openRefs(env);
  const headRef = refStore.headTarget();
  const currentBranch = branchOf(headRef);
  const remote = options.remote !== undefined ? remoteGet(config, repo.commonDir, options.remote)
    : defaultRemote(config, repo.commonDir, currentBranch);
  if (remote === null) {
    throw new GitError('client', 'no-remote', 'No remote repository specified.  Please, specify either a URL or a remote name from which new revisions should be fetched.');
  }
  // As git's prepare_transport, before FETCH_HEAD is emptied: the tips named are here.
  const tips = options.negotiationTips?.length ? negotiationTips(repo, refStore, options.negotiationTips, log) : null;
  const algorithm = negotiationAlgorithm(config);
  const tagMode: TagMode = options.tags ? 'all' : options.noTags ? 'none'
    : remote.tagOpt === '--no-tags' ? 'none' : remote.tagOpt === '--tags' ? 'all' : 'auto';
  const pruning = options.prune ?? remote.prune ?? config.getBool('fetch', null, 'prune') ?? false;
  let given = options.refspecs ?? [];
  let configured = remote.fetch;
  // git's fetch_one: prune_tags_ok only without refspecs given; the tag refspec joins a configured
  // remote's (remote_is_configured) refspecs, else stands in for the command line's.
  if (given.length === 0 && (options.pruneTags ?? remote.pruneTags ?? config.getBool('fetch', null, 'prunetags') ?? false)) {
    if (remote.origin !== null) configured = [...configured, TAG_REFSPEC];
    else given = [TAG_REFSPEC];
  }
  const fromCommandLine = given.length > 0;
  const specs = (fromCommandLine ? given : configured).map(parseRefspec);
  const headOnly = specs.length === 0;
  const tagSpec = tagMode === 'all' ? parseRefspec(TAG_REFSPEC) : null;
  const follow = tagMode === 'auto' && specs.some((s) => !s.negative && s.dst !== '');
  const shape = historyShape(repo, options);
  const deepen = deepens(shape);
  // Registered once the options are known good and before anything is fetched, as git does: a
  // failed fetch leaves the remote a promisor.
  const filter = fetchFilter(config, remote.name, options.filter);
  const connectOptions = {
    ...connectOptionsFromConfig(config, env), ...(remote.uploadPack ? { uploadPack: remote.uploadPack } : {}), ...options.transport,
  };
  // git fetches from a remote's first URL.
  const url = remote.urls[0]!;
  // git empties FETCH_HEAD before it talks to the remote: a fetch that fails leaves it empty.
  if ((options.fetchHead ?? 'write') === 'write' && !options.dryRun) emptyFetchHead(repo.gitDir);
  const remoteUrl = parseRemoteUrl(url, options.cwd ?? process.cwd());
  checkProtocolAllowed(config, env, remoteUrl);
  // Shown and stored in FETCH_HEAD without its user name and password, as git's
  // store_updated_refs does.
  const anonymous = anonymizeUrl(url);
  const shown = fetchHeadUrl(anonymous);
  const fsck = receivedFsck(config, repo.gitDir, options.strict);
  // A partial clone's new history may point at objects the filter left out, fetched or not:
  // index-pack cannot tell those from objects that should have come, the walk of connected.ts can.
  const partial = promisorRemotes(config).length > 0;
  const keepsFrom = fetchKeepsFrom(config);
  const refetch = options.refetch ?? false;

  const serverOptions = options.serverOptions ?? [];
  const session = await RemoteSession.open(remoteUrl, connectOptions, serverOptions);
  const sessions = [session];
  const onAbort = () => { for (const s of sessions) s.abort(); };
  options.signal?.addEventListener('abort', onAbort);
  const stored: PackStored[] = [];
  try {
    const prefixes = refPrefixes(specs);
    if (headOnly) prefixes.push('HEAD');
    if (follow || tagSpec) prefixes.push('refs/tags/');
    const refs = await session.listRefs({ prefixes });
    checkRemoteRefNames(refs, remoteUrl.display);

    const targets = chooseTargets(refs, specs, {
      fromCommandLine, headOnly, tagSpec, remote, config, currentBranch, refmap: options.refmap?.filter((r) => r !== '').map(parseRefspec) ?? null,
    });
    if (!options.updateHeadOk) refuseCheckedOutBranches(repo, targets);
    const followed = follow ? tagsToFollow(repo, refStore, refs, targets, false) : [];
    targets.push(...followed);

    let objects = 0;
    // Ref values a deepening round has checked already.
    const checked = new Set<string>();
    // What a round starts from: the shallow file as it is now (a round may change it), read once,
    // and the tips among `oids` here without their history: to be fetched again, not claimed as
    // common.
    const roundStart = (oids: readonly string[]): RoundStart => {
      const shallows = readShallow(repo.commonDir);
      const shallowSet = new Set(shallows);
      return { shallows, shallowSet, incomplete: incompleteTips(repo, refStore, oids, { shallow: shallowSet, promisor: partial }) };
    };
    const fetchRound = async (s: RemoteSession, wants: string[], withShape: boolean, sought: readonly Target[],
      { shallows, shallowSet, incomplete }: RoundStart): Promise<void> => {
      let roots: NewRoots = { ours: [], theirs: [], closed: true };
      // The shallow file a deepen leaves, known once the server's shallow update is read.
      let left: Set<string> = new Set();
      const local = refStore.list().map((r) => r.oid);
      const advertised = refs.flatMap((r) => (r.oid !== null && repo.odb.has(fromHex(r.oid)!) ? [r.oid] : []));
      const negotiator = refetch ? null : makeNegotiator(algorithm, repo.odb, shallowSet, withShape && deepen ? null : { localTips: local, advertised });
      if (negotiator) {
        for (const oid of advertised) if (!incomplete.has(oid)) negotiator.knownCommon(oid);
        for (const oid of tips ?? local) negotiator.addTip(oid);
      }
      const result = await fetchPack(s, {
        wants, negotiator, shallows, shape: withShape ? shape : NO_DEEPEN, filter,
        includeTag: follow, thinPack: true, noProgress: !options.onRemoteProgress, onProgress: options.onRemoteProgress,
        warn: (m) => log(`warning: ${m}\n`),
        receivePack: (pack, serverBoundary, deepened) => {
          // The server is shallow: what its boundary is to us is judged before the pack is here.
          roots = newRoots(repo, serverBoundary, shallowSet);
          // A deepen's pack stops at the boundary it leaves.
          if (withShape && deepen) left = leftShallow(shallowSet, deepened);
          return storePack(repo, pack, {
            fixThin: true, fsck, connectivity: !partial && roots.closed, shallow: [...left], progress: options.progress,
            signal: options.signal, onIndexed: options.onPackStored,
            ...(filter ? { promisor: { refs: soughtRefs(refStore, sought, refetch), listFrom: keepsFrom } } : {}),
          });
        },
      });
      stored.push(result.pack);
      objects += result.pack.objects;
      if (withShape && deepen) {
        // git's fetch-pack checks a fetch that deepens itself, with the shallow file it is about
        // to write, and writes none when the check fails. Commits here that got parents make it
        // walk all the refs reach (git's is_deepening_fetch); without any, the boundary only
        // grew, what our refs reach is whole still, and the pack's tips need no walk if closed.
        const tips = sought.map((t) => t.remote.oid);
        const deepening = result.unshallows.length > 0;
        refuseIfMissing(missingHistory(repo, refStore, tips, {
          shallow: left, deepening, promisor: partial,
          closedPacks: !deepening && result.pack.closed ? [result.pack.name] : [],
        }), 'remote', log);
        for (const oid of tips) checked.add(oid);
      }
      updateShallow(repo.commonDir, result.shallows, result.unshallows);
      const assigned = assignRoots(repo, refStore, roots, sought.map((t) => t.remote.oid), shallowSet);
      if (options.updateShallow) updateShallow(repo.commonDir, assigned.reached, []);
      else for (const t of sought) if (assigned.needy.has(t.remote.oid)) t.rejectedShallow = true;
      await s.close(s.version === 2);
    };

    const first = roundStart(refs.flatMap((r) => r.oid ?? []));
    const wants = refetch ? unique(targets.map((t) => t.remote.oid)) : unfetched(repo, targets.map((t) => t.remote.oid), first.incomplete);
    if (wants.length > 0 || deepen) {
      refuseUnadvertised(session, refs, targets);
      await fetchRound(session, wants.length > 0 ? wants : unique(targets.map((t) => t.remote.oid)), deepen, targets, first);
    } else await session.close();
    if (options.signal?.aborted) throw interrupted();

    let more: Target[] = [];
    if (follow) {
      // Tags pointing into what just arrived; include-tag normally brought their objects along.
      more = tagsToFollow(repo, refStore, refs, targets, true);
      if (!options.dryRun) targets.push(...more);
      // Not every advertised tip again: what round one brought is here, and no ref reaches it yet.
      const second = roundStart(more.map((t) => t.remote.oid));
      const backfill = unfetched(repo, more.map((t) => t.remote.oid), second.incomplete);
      if (backfill.length > 0) {
        const again = await RemoteSession.open(remoteUrl, connectOptions, serverOptions);
        sessions.push(again);
        await again.listRefs({ prefixes: ['refs/tags/'] });
        await fetchRound(again, backfill, false, more, second);
      }
    }
    if (options.signal?.aborted) throw interrupted();

    const shallowSet = new Set(readShallow(repo.commonDir));
    // git's store_updated_refs: before any ref moves, what the fetched refs reach must be here
    // (those of a deepening round are checked already). The URL is said without its password.
    const unchecked = targets.filter((t) => !t.rejectedShallow && !checked.has(t.remote.oid)).map((t) => t.remote.oid);
    refuseIfMissing(missingHistory(repo, refStore, unchecked, {
      shallow: shallowSet, deepening: false, promisor: partial, closedPacks: stored.filter((p) => p.closed).map((p) => p.name),
    }), anonymous, log);
    // The report: ref lines, and warnings where git prints them among the lines.
    const dryRun = options.dryRun ?? false;
    // git's --atomic: the updates and prunes gathered, made once every ref has been judged.
    const tx = options.atomic && !dryRun ? refStore.transaction() : null;
    // storePack() has already shown the odb each new pack.
    const abbrev = abbrevLength(repo.odb.packedObjectCount());
    const entries: (RefLine | string)[] = pruning ? prune(refStore, refs, specs, targets, dryRun, tx) : [];
    const report = options.report ?? true;
    // git reads fetch.output (quiet, not at all) as it comes to store the refs, after its prunes.
    let format: ReportFormat = 'full';
    try {
      if (report) format = reportFormat(config.get('fetch', null, 'output'));
    } catch (e) {
      log(formatReport(shown, entries, abbrev));
      throw e;
    }
    let rejected = 0;
    const action = reflogAction(env, options.reflogAction ?? 'fetch');
    const seen = new Set<string>();
    // As git's store_updated_refs: a pass for each FETCH_HEAD status, refs for merging first, each
    // reported as it is stored; refs rejected for the shallow file are warned of in the first.
    for (const status of STATUS_ORDER) {
      for (const t of targets) {
        if (t.rejectedShallow) {
          if (status === 'merge') entries.push(`warning: rejected ${t.local ?? t.remote.name} because shallow roots are not allowed to be updated\n`);
          continue;
        }
        if (t.status !== status) continue;
        let line: RefLine;
        if (t.local === null) line = fetchHeadOnlyLine(t.remote.name);
        else {
          if (seen.has(t.local)) continue;
          seen.add(t.local);
          line = updateRef(repo, refStore, t, {
            force: options.force ?? false, shallow: shallowSet, action, abbrev, dryRun, tx,
          });
        }
        if (line.code === '!') rejected++;
        entries.push(line);
      }
    }
    if (dryRun && follow && rejected === 0) {
      // git stores nothing in a dry run, so the tags it backfills after the first round are every
      // followed tag still missing here: those of the first round again, and any new ones, by name.
      // A rejected ref ends git's do_fetch before its backfill.
      const backfill = [...followed, ...more].sort((a, b) => (a.local! < b.local! ? -1 : a.local! > b.local! ? 1 : 0));
      for (const t of backfill) entries.push(updateRef(repo, refStore, t, { force: false, shallow: shallowSet, action, abbrev, dryRun }));
    }
    // A rejected ref leaves an atomic fetch's transaction unmade, and git then reports the empty
    // error of its abort, in a dry run too (its transaction begun, only never given an update).
    let transactionError: GitError | null = null;
    let after = '';
    if (options.atomic && rejected > 0) after = 'error: \n';
    else if (tx) {
      try {
        tx.commit({ atomic: true });
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        transactionError = e;
        after = `error: ${e.message}\n`;
      }
    }
    const applied = after === '';
    if (options.fetchHead !== 'none' && !dryRun && applied) writeFetchHead(repo.gitDir, targets.filter((t) => !t.rejectedShallow), anonymous, options.fetchHead === 'append');
    for (const p of stored) p.unlock();
    options.signal?.removeEventListener('abort', onAbort);

    // git's do_fetch sets the upstream only once every ref is stored, even in a dry run.
    if (options.setUpstream && rejected === 0 && applied) {
      after += setUpstream(config, headRef, remote.name, targets.filter((t) => t.local === null).map((t) => t.remote.name));
    }
    // Up-to-date refs are shown only with -v; with -q no ref is, not even a rejected one (git's
    // format_display says nothing below verbosity 0, and the exit status tells of a rejection).
    const text = formatReport(shown, entries.filter((e) => typeof e === 'string' || (report && (options.verbose || e.code !== '='))), abbrev, format);
    if (text + after !== '') log(text + after);
    return { lines: entries.filter((e) => typeof e !== 'string'), rejected, objects, transactionError };
  } catch (e) {
    options.signal?.removeEventListener('abort', onAbort);
    for (const s of sessions) s.abort();
    for (const p of stored) p.unlock();
    if (options.signal?.aborted) throw interrupted();
    throw e;
  }
}

/**
 * The refs git's fetch-pack lists in a .promisor file: those it was asked for whose local ref does
 * not have the id already (all of them in a refetch), each name once.
 */
function soughtRefs(refStore: RefStore, sought: readonly Target[], refetch: boolean): { name: string; oid: string }[] {
  const byName = new Map<string, string>();
  for (const t of sought) {
    if (!refetch && t.local !== null && refStore.resolve(t.local)?.oid === t.remote.oid) continue;
    if (!byName.has(t.remote.name)) byName.set(t.remote.name, t.remote.oid);
  }
  return [...byName].map(([name, oid]) => ({ name, oid }));
}

function unique(oids: readonly string[]): string[] {
  return [...new Set(oids)];
}

/** The shallow file a deepen leaves: ours with its new boundary, less the commits it deepened past. */
function leftShallow(shallow: ReadonlySet<string>, update: ShallowLines): Set<string> {
  const left = new Set([...shallow, ...update.shallows]);
  for (const oid of update.unshallows) left.delete(oid);
  return left;
}

/**
 * git's filter_refs for protocol v0 and v1: an object asked for by its id that the server did not
 * advertise is wanted only from a server that allows it (allow-tip-sha1-in-want or
 * allow-reachable-sha1-in-want, which uploadpack.allowAnySHA1InWant turns on too); otherwise the
 * fetch fails before anything is asked, with git's error for each. Protocol v2 has no such check.
 */
function refuseUnadvertised(session: RemoteSession, refs: readonly RemoteRef[], targets: readonly Target[]): void {
  if (session.version === 2 || session.has('allow-tip-sha1-in-want') || session.has('allow-reachable-sha1-in-want')) return;
  const tips = new Set(refs.flatMap((r) => [r.oid, r.peeled].filter((o): o is string => o !== null && o !== undefined)));
  const refused = unique(targets.filter((t) => t.remote.name === t.remote.oid && !tips.has(t.remote.oid)).map((t) => t.remote.oid));
  if (refused.length === 0) return;
  throw new GitError('client', 'unadvertised-object', refused.map((oid) => `Server does not allow request for unadvertised object ${oid}`).join('\nerror: '));
}

/** Ids to ask for: those not here, and those here without their history. */
function unfetched(repo: Repository, oids: readonly string[], incomplete: ReadonlySet<string>): string[] {
  return unique(oids).filter((oid) => incomplete.has(oid) || !repo.odb.has(fromHex(oid)!));
}

/**
 * git's get_ref_map: the refs to fetch, and how FETCH_HEAD lists them. Refs named on the command
 * line are for merging, and also update the remote-tracking refs the configured refspecs give
 * them (git's "opportunistic" update, left out of FETCH_HEAD).
 */
function chooseTargets(refs: readonly RemoteRef[], specs: readonly Refspec[], o: {
  fromCommandLine: boolean; headOnly: boolean; tagSpec: Refspec | null; remote: Remote; config: Config; currentBranch: string | null;
  refmap: readonly Refspec[] | null;
}): Target[] {
  // Where git's get_ref_map finds it: the remote's refs listed, FETCH_HEAD already emptied.
  if (o.refmap !== null && !o.fromCommandLine) throw new GitError('client', 'usage', '--refmap option is only meaningful with command-line refspec(s)');
  const as = (status: FetchHeadStatus) => (m: MappedRef): Target => ({ ...m, status });
  const tags = o.tagSpec ? mapRefs(refs, [o.tagSpec]).map(as('not-for-merge')) : [];
  if (o.headOnly) {
    const head = refs.find((r) => r.name === 'HEAD');
    if (!head || head.oid === null) throw new GitError('client', 'no-such-ref', "couldn't find remote ref HEAD");
    return [{ remote: { ...head, oid: head.oid }, local: null, force: false, status: 'merge' }, ...tags];
  }
  if (o.fromCommandLine) {
    const targets = mapRefs(refs, specs).map(as('merge'));
    const configured = o.refmap ?? o.remote.fetch.map(parseRefspec);
    const opportunistic = mapRefs(targets.map((t) => t.remote), configured, true).map(as('ignore'));
    return [...targets, ...tags, ...opportunistic];
  }
  const targets = mapRefs(refs, specs).map(as('not-for-merge'));
  const branchRemote = o.currentBranch !== null ? o.config.get('branch', o.currentBranch, 'remote') : undefined;
  const merges = o.currentBranch !== null && branchRemote === o.remote.name ? o.config.getAll('branch', o.currentBranch, 'merge') : [];
  if (merges.length > 0) {
    for (const t of targets) if (merges.includes(t.remote.name)) t.status = 'merge';
  } else if (targets.length > 0 && !specs[0]!.pattern && !specs[0]!.negative) {
    targets[0]!.status = 'merge';
  }
  return [...targets, ...tags];
}

/**
 * git's find_non_local_tags: remote tags we have no ref for, whose tag object we hold, or which
 * point at something we hold or are about to fetch. `after` is the second look, once the pack
 * is in: then only tags whose target arrived are added.
 */
function tagsToFollow(repo: Repository, refStore: RefStore, refs: readonly RemoteRef[], targets: readonly Target[], after: boolean): Target[] {
  const taken = new Set(targets.map((t) => t.local));
  const fetching = new Set(targets.map((t) => t.remote.oid));
  const has = (oid: string) => repo.odb.has(fromHex(oid)!);
  const out: Target[] = [];
  for (const r of refs) {
    if (!r.name.startsWith('refs/tags/') || r.oid === null || taken.has(r.name)) continue;
    if (refStore.resolve(r.name) !== null) continue;
    const peeled = r.peeled ?? r.oid;
    const wanted = after
      ? has(peeled)
      : has(r.oid) || fetching.has(r.oid) || has(peeled) || fetching.has(peeled);
    if (!wanted) continue;
    out.push({ remote: { ...r, oid: r.oid }, local: r.name, force: false, status: 'not-for-merge' });
  }
  return out;
}

/** git's prune_refs: remote-tracking refs of the refspecs whose source is gone from the remote. */
function prune(refStore: RefStore, refs: readonly RemoteRef[], specs: readonly Refspec[], targets: readonly Target[], dryRun: boolean,
  tx: RefTransaction | null): RefLine[] {
  const remoteNames = new Set(refs.map((r) => r.name));
  const updating = new Set(targets.map((t) => t.local));
  const lines: RefLine[] = [];
  for (const spec of specs) {
    if (spec.negative || spec.dst === '') continue;
    const candidates = spec.pattern ? refStore.list(spec.dst.slice(0, spec.dst.indexOf('*'))) : refStore.list(spec.dst);
    for (const local of candidates) {
      if (local.symref !== undefined || updating.has(local.name)) continue;
      const source = spec.pattern ? mapPattern(spec.dst, spec.src, local.name) : local.name === spec.dst ? spec.src : null;
      if (source === null) continue;
      if (remoteNames.has(source)) continue;
      if (tx) tx.delete(local.name, local.oid);
      else if (!dryRun) refStore.delete(local.name, { oldOid: local.oid });
      lines.push({ code: '-', summary: '[deleted]', remote: '(none)', local: local.name });
    }
  }
  return lines;
}

/** git's check_not_current_branch: no branch that a work tree has checked out is fetched into. */
function refuseCheckedOutBranches(repo: Repository, targets: readonly Target[]): void {
  // The work trees are read once, not for each of what may be thousands of targets.
  const checkedOut = checkedOutBranches(repo.commonDir);
  for (const t of targets) {
    if (!t.local?.startsWith('refs/heads/')) continue;
    const at = checkedOut.get(t.local);
    if (at !== undefined) throw new GitError('client', 'checked-out', `refusing to fetch into branch '${t.local}' checked out at '${at}'`);
  }
}

/** git's update_local_ref: one ref, with the line that reports it. */
function updateRef(repo: Repository, refStore: RefStore, t: Target, o: {
  force: boolean; shallow: ReadonlySet<string>; action: string; abbrev: number; dryRun: boolean; tx?: RefTransaction | null;
}): RefLine {
  const local = t.local!;
  const remote = t.remote.name;
  const newOid = t.remote.oid;
  const old = refStore.resolve(local)?.oid ?? null;
  const line = (code: string, summary: string, error?: string): RefLine =>
    error === undefined ? { code, summary, remote, local } : { code, summary, remote, local, error };
  if (old === newOid) return line('=', '[up to date]');
  const store = (code: string, summary: string, message: string, error?: string): RefLine => {
    if (o.dryRun) return line(code, summary, error);
    if (o.tx) {
      o.tx.update(local, newOid, old, `${o.action}: ${message}`);
      return line(code, summary, error);
    }
    try {
      refStore.update(local, newOid, { oldOid: old, reflogMessage: `${o.action}: ${message}` });
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      return line('!', summary, 'unable to update local ref');
    }
    return line(code, summary, error);
  };
  const force = o.force || t.force;
  if (old !== null && local.startsWith('refs/tags/')) {
    return force ? store('t', '[tag update]', 'updating tag') : line('!', '[rejected]', 'would clobber existing tag');
  }
  const current = old === null ? null : commitOf(repo, old);
  const updated = commitOf(repo, newOid);
  if (current === null || updated === null) {
    if (remote.startsWith('refs/tags/')) return store('*', '[new tag]', 'storing tag');
    if (remote.startsWith('refs/heads/')) return store('*', '[new branch]', 'storing head');
    return store('*', '[new ref]', 'storing ref');
  }
  const short = (oid: string) => oid.slice(0, o.abbrev);
  if (isAncestor(repo.odb, current, updated, o.shallow)) return store(' ', `${short(old!)}..${short(newOid)}`, 'fast-forward');
  if (force) return store('+', `${short(old!)}...${short(newOid)}`, 'forced-update', 'forced update');
  return line('!', '[rejected]', 'non-fast-forward');
}

/** A ref fetched into FETCH_HEAD only: " * branch            side       -> FETCH_HEAD". */
function fetchHeadOnlyLine(remote: string): RefLine {
  const kind = remote.startsWith('refs/heads/') ? 'branch' : remote.startsWith('refs/tags/') ? 'tag'
    : remote.startsWith('refs/remotes/') ? 'remote-tracking branch' : 'branch';
  return { code: '*', summary: kind, remote, local: 'FETCH_HEAD', widthless: true };
}

/** The commit an id peels to, or null when it is no commit (or missing). */
function commitOf(repo: Repository, oid: string): string | null {
  const peeled = peeledValue(repo.odb, oid) ?? oid;
  const info = repo.odb.info(fromHex(peeled)!);
  return info?.type === OBJ_COMMIT ? peeled : null;
}

/** git's truncate_fetch_head. */
export function emptyFetchHead(gitDir: string): void {
  fs.writeFileSync(path.join(gitDir, 'FETCH_HEAD'), '');
}

/** FETCH_HEAD: refs marked for merging first, then the rest (not the opportunistic ones), as git writes it. */
function writeFetchHead(gitDir: string, targets: readonly Target[], url: string, append: boolean): void {
  let text = '';
  for (const status of ['merge', 'not-for-merge'] as const) {
    for (const t of targets) if (t.status === status) text += fetchHeadLine(t.remote.oid, t.remote.name, status === 'merge', url);
  }
  fs.writeFileSync(path.join(gitDir, 'FETCH_HEAD'), text, { flag: append ? 'a' : 'w' });
}
