// Clone, top to bottom (git's builtin/clone.c):
//   claim the directory -> init the repository and write the remote's config
//   -> transport.connect -> list refs (ls-refs / advertisement) -> choose refs and wants
//   -> fetch-pack (no haves) -> index-pack as the pack arrives -> shallow file
//   -> refs (packed-refs for the remote's refs, HEAD, branch tracking) -> checkout
// Any failure, or an abort through `signal` (the CLI's SIGINT), removes what the clone created.
import fs from 'node:fs';
import path from 'node:path';
import { gitAbsolutePath } from '../core/absolute-path.js';
import type { ConfigSetting } from '../config/command-line.js';
import { Config, configuredInitialBranch, DEFAULT_INITIAL_BRANCH } from '../config/index.js';
import { GitError } from '../core/errors.js';
import type { Progress } from '../core/progress.js';
import { fromHex, ZERO_HEX } from '../core/oid.js';
import type { RefStore } from '../refs/index.js';
import { deepens, NO_DEEPEN, type FilterSpec, type HistoryShape } from '../protocol/index.js';
import { Repository } from '../repository/repository.js';
import { parseRemoteUrl, type ConnectOptions } from '../transport/index.js';
import { localRepositoryFound } from './local-repository-path.js';
import { checkoutTree } from '../worktree/checkout.js';
import { recordSparseMode } from '../worktree/sparse/config.js';
import { readSparseCheckout, writeFirstPatterns } from '../worktree/sparse/settings.js';
import { postCheckout } from '../worktree/post-checkout.js';
import { fetchPack } from './fetch-pack.js';
import { ConsecutiveNegotiator } from './negotiator.js';
import { missingHistory, refuseIfMissing } from './connected.js';
import { addReferences, dissociate, referenceTips, type Reference } from './reference.js';
import { guessDirectory } from './guess-directory.js';
import { initRepository } from './init-repository.js';
import { JunkDirectory } from './junk.js';
import { promisorRemotes, registerPartialClone } from './partial-clone.js';
import { fetchForCheckout } from './promised-objects.js';
import { peeledValue } from './peel.js';
import { parseRefspec, type Refspec } from '../refs/refspec.js';
import { checkRemoteRefNames, mapRefs, type MappedRef } from './refspec.js';
import { RemoteSession, type RemoteRef } from './session.js';
import { boundaryHere, readShallow, updateShallow } from './shallow-file.js';
import { fetchKeepsFrom, receivedFsck, storePack, type PackStored } from './store-pack.js';
import { remoteConfigWarnings, remoteGet, validRemoteName } from '../repository/remotes.js';
import { installBranchConfig } from '../repository/upstream.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from './transport-config.js';

export interface CloneOptions {
  /** Where to clone to; by default a name guessed from the URL, in `cwd`. */
  readonly directory?: string;
  readonly cwd?: string;
  readonly bare?: boolean;
  /** A bare clone that maps every remote ref to the same local name (implies bare). */
  readonly mirror?: boolean;
  /** The branch (or tag) to check out instead of the remote's HEAD. */
  readonly branch?: string;
  /** Fetch only one branch; by default only when `shape` deepens, as in git. */
  readonly singleBranch?: boolean;
  readonly noTags?: boolean;
  /** Refuse a source repository that is itself shallow (git's --reject-shallow); default clone.rejectShallow. */
  readonly rejectShallow?: boolean;
  /**
   * A shallow clone's history (--depth, --shallow-since, --shallow-exclude); default NO_DEEPEN,
   * all of it. A clone has no boundary yet for a relative shape to count from.
   */
  readonly shape?: HistoryShape;
  /** Local repositories whose objects the clone borrows (--reference, --reference-if-able). */
  readonly references?: readonly Reference[];
  /** Copy the borrowed objects in once the clone has them (--dissociate). */
  readonly dissociate?: boolean;
  readonly filter?: FilterSpec;
  readonly noCheckout?: boolean;
  /**
   * Start a sparse checkout of the top-level files alone, in cone mode (git's --sparse, which
   * runs `sparse-checkout init`); with a filter, only their blobs are fetched.
   */
  readonly sparse?: boolean;
  /**
   * Put the repository here instead of `<directory>/.git`, which becomes a gitfile naming it
   * (git's --separate-git-dir; a submodule's clone into `.git/modules/<name>`).
   */
  readonly separateGitDir?: string;
  /**
   * Settings written into the new repository as soon as it exists, before anything is fetched
   * (git's clone --config; parseConfigSetting reads `name=value`); added after values the name
   * already has, a bare name as true.
   */
  readonly config?: readonly ConfigSetting[];
  /** The remote's name (git's -o); default origin. */
  readonly origin?: string;
  /**
   * fsck every received object, and, except for partial clones (whose history is walked once the
   * pack is in), check that everything they point to arrived, short of a shallow clone's
   * boundary. Default: as fetch.fsckObjects and transfer.fsckObjects say, on when neither is set.
   */
  readonly strict?: boolean;
  /** Meters for receiving the pack, resolving deltas and updating files (the CLI draws them on stderr). */
  readonly progress?: Progress;
  /** The server's progress text; when absent the server is asked not to send any. */
  readonly onRemoteProgress?: (text: string) => void;
  /** "Cloning into ..." and warnings, as git prints them to stderr. */
  readonly log?: (message: string) => void;
  /** The post-checkout hook's output; default our stderr. */
  readonly hookOutput?: (text: string) => void;
  /**
   * What the checkout prints (warnings about attributes lines, failed working-tree-encodings),
   * which git shows even when the clone is quiet; default `log`.
   */
  readonly checkoutOutput?: (text: string) => void;
  /**
   * Runs once index-pack has stored the pack, when its tables (tens of megabytes on a large pack,
   * outside the JavaScript heap, so nothing urges the garbage collector to free them) have just
   * become garbage: the CLI collects them there, before the object database reads the new pack's
   * index and checkout starts.
   */
  readonly onPackStored?: () => void;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  /** Transport settings; they override what the global config says. */
  readonly transport?: ConnectOptions;
}

export interface CloneResult {
  readonly gitDir: string;
  readonly workTree: string | null;
  /** What HEAD names (null when detached) and the commit it resolves to (null when unborn). */
  readonly head: { readonly symref: string | null; readonly oid: string | null };
  /** Refs written, HEAD and the remote's HEAD not counted. */
  readonly refs: number;
  readonly objects: number;
  /** The post-checkout hook's exit status (0 when none ran), which git clone exits with. */
  readonly hookStatus: number;
}

function interrupted(): GitError {
  return new GitError('client', 'interrupted', 'clone interrupted');
}

export async function clone(url: string, options: CloneOptions = {}): Promise<CloneResult> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const mirror = options.mirror ?? false;
  const bare = mirror || (options.bare ?? false);
  const origin = options.origin ?? 'origin';
  if (!validRemoteName(origin)) throw new GitError('client', 'bad-remote', `'${origin}' is not a valid remote name`);
  const shape = options.shape ?? NO_DEEPEN;
  const deepen = deepens(shape);
  const singleBranch = options.singleBranch ?? deepen;
  const log = options.log ?? (() => {});
  if (!url.includes(':') && !localRepositoryFound(path.resolve(cwd, url))) {
    throw new GitError('client', 'no-repository', `repository '${url}' does not exist`);
  }
  const remoteUrl = parseRemoteUrl(url, cwd);
  // A local path is recorded absolute, so the clone keeps working from any directory; as git
  // records it, the text given after the working directory, not normalised.
  const storedUrl = remoteUrl.kind === 'file' && !/^file:/i.test(url) ? gitAbsolutePath(url, cwd, env) : url;
  const shown = options.directory ?? guessDirectory(url, bare);
  const target = path.resolve(cwd, shown);
  const separate = options.separateGitDir !== undefined && !bare ? path.resolve(cwd, options.separateGitDir) : null;
  const junks = [JunkDirectory.claim(target, shown)];
  if (separate) junks.push(JunkDirectory.claim(separate, separate));
  const junk = { keep: () => { for (const j of junks) j.keep(); }, remove: () => { for (const j of junks) j.remove(); } };
  log(bare ? `Cloning into bare repository '${shown}'...\n` : `Cloning into '${shown}'...\n`);

  let session: RemoteSession | null = null;
  let stored: PackStored | null = null;
  // An interrupt takes back what the clone made at once (index-pack may be busy resolving deltas
  // for a while yet); once the repository is complete, junk.keep() makes this a no-op.
  const onAbort = () => {
    session?.abort();
    junk.remove();
  };
  options.signal?.addEventListener('abort', onAbort);
  try {
    const gitDir = bare ? target : separate ?? path.join(target, '.git');
    const workTree = bare ? null : target;
    // One configuration for the whole clone: the global files, then the new repository's own
    // (save() re-reads the file initRepository wrote, replays the edits on it, and reloads).
    const config = Config.loadSync(gitDir, { global: true, env });
    const initialBranch = configuredInitialBranch(config) ?? DEFAULT_INITIAL_BRANCH;
    initRepository(gitDir, { bare, initialBranch });
    if (separate) fs.writeFileSync(path.join(target, '.git'), `gitdir: ${separate}\n`);
    for (const { section, subsection, key, value } of options.config ?? []) config.add(section, subsection, key, value ?? 'true');
    // Read with the clone's own -c settings, as git reads its configuration again once they are in.
    const rejectShallow = options.rejectShallow ?? config.getBool('clone', null, 'rejectshallow') ?? false;
    const srcPrefix = mirror ? 'refs/' : 'refs/heads/';
    const branchTop = bare ? srcPrefix : `refs/remotes/${origin}/`;
    const refspec = parseRefspec(`+${srcPrefix}*:${branchTop}*`);
    config.set('remote', origin, 'url', storedUrl);
    if (options.noTags) config.set('remote', origin, 'tagOpt', '--no-tags');
    config.save();
    if (options.sparse) initSparseCheckout(gitDir, bare);

    // As git's clone: the stored URL is the one given, the one used is remote_get's first (which
    // has url.<base>.insteadOf applied, and reads the remotes, saying what git says of them); and
    // the protocol must be allowed (protocol.<name>.allow).
    for (const text of remoteConfigWarnings(config)) log(text);
    const fetchUrl = parseRemoteUrl(remoteGet(config, gitDir, origin).urls[0]!, cwd);
    checkProtocolAllowed(config, env, fetchUrl);
    const connectOptions = { ...connectOptionsFromConfig(config, env), ...options.transport };
    session = await RemoteSession.open(fetchUrl, connectOptions);
    if (options.signal?.aborted) throw interrupted();
    const prefixes = ['HEAD', srcPrefix];
    if (options.branch) prefixes.push(`refs/heads/${options.branch}`, `refs/tags/${options.branch}`);
    if (!options.noTags) prefixes.push('refs/tags/');
    const refs = await session.listRefs({ prefixes, unborn: true });
    checkRemoteRefNames(refs, fetchUrl.display);
    const head = refs.find((r) => r.name === 'HEAD') ?? null;
    const plan = chooseRefs(refs, head, { refspec, branch: options.branch, singleBranch, mirror, noTags: options.noTags ?? false, origin });
    // A git-core server advertises a ref whose file is broken with the zero id; git's clone dies
    // writing it. Say so before asking for an object no one has.
    const nullRef = plan.mapped.find((m) => m.remote.oid === ZERO_HEX);
    if (nullRef) throw new GitError('client', 'corrupt', `'${nullRef.local ?? nullRef.remote.name}' has a null OID`);

    writeRefspecConfig(config, plan, { origin, bare, mirror, singleBranch, branch: options.branch, srcPrefix, branchTop });
    if (options.filter) registerPartialClone(config, origin, options.filter);

    const borrowed = addReferences(gitDir, cwd, options.references ?? [], log);
    const repository = new Repository(gitDir, workTree);
    const fsck = receivedFsck(config, gitDir, options.strict);
    const refStore = repository.openRefs(env);
    try {
      const reflogMessage = `clone: from ${storedUrl}`;
      let objects = 0;
      // What a reference repository holds is not asked for, and its refs are offered as haves.
      const wants = [...new Set(plan.mapped.map((m) => m.remote.oid))].filter((oid) => borrowed.length === 0 || !repository.odb.has(fromHex(oid)!));
      let negotiator: ConsecutiveNegotiator | null = null;
      const borrowedTips = referenceTips(borrowed);
      if (borrowed.length > 0) {
        negotiator = new ConsecutiveNegotiator(repository.odb);
        for (const tip of borrowedTips) negotiator.addTip(tip);
      }
      if (wants.length > 0) {
        const filtered = options.filter ?? null;
        const fetched = await fetchPack(session, {
          wants, negotiator, shape, filter: filtered,
          includeTag: singleBranch && !options.noTags, thinPack: false, noProgress: !options.onRemoteProgress,
          onProgress: options.onRemoteProgress, warn: (m) => log(`warning: ${m}\n`),
          // A pack that stops at a shallow boundary (ours or the server's) is closed under its
          // references but for the boundary commits' parents: the shallow file the clone writes.
          receivePack: (pack, serverBoundary, deepened) => {
            if (rejectShallow && serverBoundary.length > 0) throw new GitError('client', 'shallow-source', 'source repository is shallow, reject to clone.');
            return storePack(repository, pack, {
            fixThin: false, fsck, connectivity: !filtered, shallow: [...deepened.shallows, ...serverBoundary], progress: options.progress,
            signal: options.signal, onIndexed: options.onPackStored,
            // git's clone keeps its pack, so its .promisor always lists the refs.
            ...(filtered ? { promisor: { refs: plan.mapped.map((m) => ({ name: m.remote.name, oid: m.remote.oid })), listFrom: 0 } } : {}),
            });
          },
        });
        stored = fetched.pack;
        objects = stored.objects;
        await session.close(session.version === 2);
        session = null;
        if (options.signal?.aborted) throw interrupted();
        // Cloning a shallow repository: its boundary commits that came in are ours too (update_shallow's
        // "remote is shallow, but this is a clone").
        const boundary = boundaryHere(repository.odb, fetched.serverBoundary);
        updateShallow(gitDir, [...fetched.shallows, ...boundary], fetched.unshallows);
      } else {
        await session.close();
        session = null;
      }

      // git's clone checks what the refs will reach before it writes them, with the shallow file
      // it wrote; a failure takes the clone back.
      refuseIfMissing(missingHistory(repository, refStore, plan.mapped.map((m) => m.remote.oid), {
        shallow: readShallow(gitDir), deepening: false, promisor: promisorRemotes(config).length > 0,
        closedPacks: stored?.closed ? [stored.name] : [], alternateTips: borrowedTips,
      }), 'remote', log);
      const odb = repository.odb;
      const written = writeRemoteRefs(repository, refStore, plan.mapped, refs, singleBranch && !options.noTags, reflogMessage);
      const headState = setupHead(refStore, config, plan, {
        bare, origin, branchTop, reflogMessage, initialBranch, log, peel: (oid) => peeledValue(odb, oid) ?? oid,
      });
      stored?.unlock();
      if (options.signal?.aborted) throw interrupted();
      if (options.dissociate && borrowed.length > 0) await dissociate(repository, refStore);

      // From here on the repository is complete; like git, a failed checkout leaves it in place.
      junk.keep();
      let hookStatus = 0;
      if (workTree && !options.noCheckout && headState.oid) {
        try {
          if (options.filter) {
            // What the checkout reads and writes, as git fetches it on demand. Each session is
            // kept where an interrupt can abort it.
            const open = async () => (session = await RemoteSession.open(fetchUrl, connectOptions));
            const sparse = readSparseCheckout(repository.loadConfig(env), gitDir, () => {});
            await fetchForCheckout({ open, fsck, keepsFrom: fetchKeepsFrom(config) }, repository, headState.oid, sparse, null, options);
            session = null;
          }
          if (options.signal?.aborted) throw interrupted();
          // Filters run as under git clone: with GIT_DIR set, told the branch.
          const { messages } = await checkoutTree(repository, fromHex(headState.oid)!, {
            workTree, env: { ...env, GIT_DIR: gitDir }, ...headState.symref ? { ref: headState.symref } : {},
            progress: options.progress,
          });
          for (const message of messages) (options.checkoutOutput ?? log)(`${message}\n`);
        } catch (e) {
          throw checkoutFailed(e);
        }
        // As under git clone: GIT_DIR set, and its output shown even when the clone is quiet.
        const hookLog = options.hookOutput ?? ((text: string) => { process.stderr.write(text); });
        hookStatus = await postCheckout({ commonDir: gitDir, workTree, config, env, gitDirEnv: gitDir, log: hookLog }, ZERO_HEX, headState.oid);
      }
      options.signal?.removeEventListener('abort', onAbort);
      return { gitDir, workTree, head: headState, refs: written, objects, hookStatus };
    } finally {
      repository.close();
    }
  } catch (e) {
    options.signal?.removeEventListener('abort', onAbort);
    session?.abort();
    junk.remove();
    if (options.signal?.aborted && !(e instanceof GitError && e.code === 'checkout-failed')) throw interrupted();
    throw e;
  }
}

/**
 * git's `sparse-checkout init` as clone --sparse runs it, before anything is fetched: cone mode,
 * the top level alone. A bare clone has no work tree to make sparse, and fails as git's does.
 */
function initSparseCheckout(gitDir: string, bare: boolean): void {
  if (bare) throw new GitError('client', 'sparse-init-failed', 'this operation must be run in a work tree\nerror: failed to initialize sparse-checkout');
  recordSparseMode(gitDir, gitDir, 'cone');
  writeFirstPatterns(gitDir);
}

function checkoutFailed(cause: unknown): GitError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new GitError('client', 'checkout-failed', `${why}\nwarning: Clone succeeded, but checkout failed.\n` +
    "You can inspect what was checked out with 'git status'\nand retry with 'git restore --source=HEAD :/'\n", { cause });
}

interface RefPlan {
  /** The refs to fetch; those with a local name are written. HEAD comes first when wanted. */
  readonly mapped: MappedRef[];
  /** The remote ref the local HEAD follows (git's our_head_points_at). */
  readonly ours: MappedRef | null;
  /** The branch the remote's HEAD names, when it is among the mapped refs. */
  readonly remoteHead: MappedRef | null;
  /** The remote's HEAD itself, with its id (null when unborn or absent). */
  readonly head: RemoteRef | null;
}

/** git's wanted_peer_refs and guess_remote_head. */
function chooseRefs(refs: readonly RemoteRef[], head: RemoteRef | null,
  o: { refspec: Refspec; branch?: string; singleBranch: boolean; mirror: boolean; noTags: boolean; origin: string }): RefPlan {
  const tagSpec = parseRefspec('refs/tags/*:refs/tags/*');
  const withOid = (r: RemoteRef | null | undefined): r is RemoteRef & { oid: string } => !!r && r.oid !== null;
  const mapped: MappedRef[] = [];
  const headEntry = withOid(head) ? { remote: head, local: null, force: false } : null;
  const findBranch = (name: string) => refs.find((r) => r.name === `refs/heads/${name}`) ?? refs.find((r) => r.name === `refs/tags/${name}`);
  if (o.singleBranch) {
    let chosen: RemoteRef | undefined;
    if (o.branch !== undefined) {
      chosen = findBranch(o.branch);
    } else {
      if (headEntry) mapped.push(headEntry);
      chosen = guessRemoteHead(head, refs) ?? undefined;
    }
    if (withOid(chosen)) {
      mapped.push(...mapRefs([chosen], [o.refspec]));
      mapped.push(...mapRefs([chosen], [tagSpec]));
    }
  } else {
    if (headEntry) mapped.push(headEntry);
    mapped.push(...mapRefs(refs, [o.refspec]));
    if (!o.mirror && !o.noTags) mapped.push(...mapRefs(refs, [tagSpec]));
  }
  const remoteHeadName = guessRemoteHead(head, mapped.map((m) => m.remote))?.name;
  const remoteHead = mapped.find((m) => m.local !== null && m.remote.name === remoteHeadName) ?? null;
  let ours: MappedRef | null = remoteHead;
  if (o.branch !== undefined) {
    const b = o.branch;
    ours = mapped.find((m) => m.local !== null && m.remote.name === `refs/heads/${b}`)
      ?? mapped.find((m) => m.local !== null && m.remote.name === `refs/tags/${b}`) ?? null;
    if (!ours) throw new GitError('client', 'no-such-ref', `Remote branch ${b} not found in upstream ${o.origin}`);
  }
  return { mapped, ours, remoteHead, head };
}

/** The branch the remote's HEAD points at: its symref when there is one, else a branch with its id. */
function guessRemoteHead(head: RemoteRef | null, refs: readonly RemoteRef[]): RemoteRef | null {
  if (!head) return null;
  if (head.symrefTarget !== undefined) return refs.find((r) => r.name === head.symrefTarget) ?? null;
  if (head.oid === null) return null;
  return refs.find((r) => r.name === 'refs/heads/master' && r.oid === head.oid)
    ?? refs.find((r) => r.name.startsWith('refs/heads/') && r.oid === head.oid) ?? null;
}

/** git's write_refspec_config: what later fetches map, narrowed to one branch by --single-branch. */
function writeRefspecConfig(config: Config, plan: RefPlan, o: {
  origin: string; bare: boolean; mirror: boolean; singleBranch: boolean; branch?: string; srcPrefix: string; branchTop: string;
}): void {
  if (o.bare && !o.mirror) return;
  let value: string | null = null;
  if (o.singleBranch && !o.mirror) {
    if (o.branch !== undefined && plan.ours) {
      const name = plan.ours.remote.name;
      value = name.startsWith('refs/tags/') ? `+${name}:${name}` : `+${name}:${o.branchTop}${o.branch}`;
    } else if (plan.remoteHead) {
      // Without a remote-tracking ref for it, a later fetch simply updates FETCH_HEAD, as in git.
      value = `+${plan.remoteHead.remote.name}:${o.branchTop}${plan.remoteHead.remote.name.slice('refs/heads/'.length)}`;
    }
  } else {
    value = `+${o.srcPrefix}*:${o.branchTop}*`;
  }
  if (value === null) return;
  config.add('remote', o.origin, 'fetch', value);
  if (o.mirror) config.set('remote', o.origin, 'mirror', 'true');
  config.save();
}

/**
 * The remote's refs go to packed-refs in one write, as git's clone does; with --single-branch,
 * tags whose objects arrived (include-tag) are added as loose refs, as git's write_followtags.
 */
function writeRemoteRefs(repo: Repository, refStore: RefStore, mapped: readonly MappedRef[], refs: readonly RemoteRef[],
  followTags: boolean, reflogMessage: string): number {
  const byName = new Map<string, { name: string; oid: string; peeled?: string }>();
  for (const m of mapped) {
    if (m.local === null || byName.has(m.local)) continue;
    const peeled = peeledValue(repo.odb, m.remote.oid);
    byName.set(m.local, peeled === null ? { name: m.local, oid: m.remote.oid } : { name: m.local, oid: m.remote.oid, peeled });
  }
  if (byName.size > 0) refStore.createInitial([...byName.values()]);
  let written = byName.size;
  if (followTags) {
    for (const r of refs) {
      if (!r.name.startsWith('refs/tags/') || r.oid === null || byName.has(r.name)) continue;
      if (!repo.odb.has(fromHex(r.oid)!)) continue;
      refStore.update(r.name, r.oid, { oldOid: null, reflogMessage });
      written++;
    }
  }
  return written;
}

/** git's update_head and the remote HEAD symref of update_remote_refs. */
function setupHead(refStore: RefStore, config: Config, plan: RefPlan,
  o: {
    bare: boolean; origin: string; branchTop: string; reflogMessage: string; initialBranch: string;
    log: (m: string) => void; peel: (oid: string) => string;
  }):
  { symref: string | null; oid: string | null } {
  const { ours, remoteHead, head } = plan;
  if (plan.mapped.length === 0) {
    o.log('warning: You appear to have cloned an empty repository.\n');
    const unborn = head?.symrefTarget?.startsWith('refs/heads/') ? head.symrefTarget : `refs/heads/${o.initialBranch}`;
    refStore.setSymbolic('HEAD', unborn);
    if (!o.bare) installBranchConfig(config, unborn.slice(11), o.origin, [unborn]);
    return { symref: unborn, oid: null };
  }
  if (remoteHead && !o.bare) {
    refStore.setSymbolic(`${o.branchTop}HEAD`, remoteHead.local!, { reflogMessage: o.reflogMessage });
  }
  if (ours && ours.remote.name.startsWith('refs/heads/')) {
    refStore.setSymbolic('HEAD', ours.remote.name);
    if (!o.bare) {
      refStore.update('HEAD', ours.remote.oid, { reflogMessage: o.reflogMessage });
      installBranchConfig(config, ours.remote.name.slice(11), o.origin, [ours.remote.name]);
    }
    return { symref: ours.remote.name, oid: ours.remote.oid };
  }
  const detachAt = ours ? o.peel(ours.remote.oid) : head?.oid ?? null;
  if (detachAt === null) {
    o.log('warning: remote HEAD refers to nonexistent ref, unable to checkout\n');
    return { symref: refStore.head().symref, oid: null };
  }
  refStore.update('HEAD', detachAt, { noDeref: true, reflogMessage: o.reflogMessage });
  return { symref: null, oid: detachAt };
}

