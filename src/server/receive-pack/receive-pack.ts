// receive-pack, the push journey in one place (git's builtin/receive-pack.c, cmd_receive_pack):
//   advertise refs (unless a stateless POST) -> read the update commands and push options
//   -> the pack into a quarantine, fsck'd and completed (unpack.ts) -> connectivity of the new
//   tips (connectivity.ts) -> hidden refs, the embedder's authorize -> pre-receive -> move the
//   objects into the repository -> per ref: git's update() rules and the update hook -> one ref
//   transaction (all or nothing with `atomic`, each ref alone otherwise) -> report-status
//   -> post-receive, post-update -> gc --auto in the background.
// It is transport-neutral: bytes in, bytes out, as stdio, ssh, git:// and smart HTTP carry them.
// Protocol v2 has no push: a v2 request is answered in v0, as git does; v1 adds "version 1".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Config } from '../../config/index.js';
import { checkGitmodulesBlob } from '../../config/gitmodules.js';
import { GitError } from '../../core/errors.js';
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import { DeltaBaseCache } from '../../odb/delta-base-cache.js';
import { ObjectDatabase } from '../../odb/database.js';
import {
  encodeSideband, FLUSH_PKT, formatErr, formatRefAdvertisement, formatStatusReport, hasCapability, findCapability,
  isDeletion, PacketReader, readPushOptions, readPushRequest, DEFAULT_REQUEST_LIMITS, type Capability, type PushCommand,
  type RequestLimits,
} from '../../protocol/index.js';
import { checkRefFormat } from '../../refs/check-ref-format.js';
import type { RefStore, RefTransaction } from '../../refs/store.js';
import type { Repository } from '../../repository/repository.js';
import { Response, type ResponseSink } from '../session.js';
import { AGENT, protocolVersion } from '../upload-pack.js';
import { startAutoGc } from './auto-gc.js';
import { connectedThroughBases } from './connectivity.js';
import { connectivityGap } from '../../walk/connectivity.js';
import { allWorktrees, type Worktree } from '../../repository/linked-worktrees.js';
import { updateWorktree } from './update-instead.js';
import { nonCommitOnBranch, refusal, updatesWorkTree } from './update-rules.js';
import { hookStdin, pushOptionEnv, type HookContext, type HookName, type ReceiveHooks } from './hooks.js';
import { findHook, runHookScript, type ScriptHookSettings } from '../../repository/hook-script.js';
import { isHiddenRef, readReceivePolicy, type ReceivePackPolicy } from './policy.js';
import { Quarantine } from './quarantine.js';
import { unpack, UnpackError, type Unpacked } from './unpack.js';
import { progressText } from '../../core/progress.js';
import { limitInput } from '../client-input.js';

/**
 * What the embedder says about one ref update: true allows it, false or a reason refuses it (the
 * ref's `ng` line gives the reason, "refused by the server" without one).
 */
export type AuthorizeUpdate = (update: PushCommand) => boolean | string | Promise<boolean | string>;

export interface ReceivePackLimits {
  /** Pack bytes accepted (receive.maxInputSize overrides it when set); 0 unlimited. */
  maxInputSize?: number;
  /** Objects a pack may hold; 0 unlimited. */
  maxObjects?: number;
  /** Seconds without client input before giving up; 0 waits forever. */
  timeout?: number;
  /** Commands, shallow lines and push options in one request. */
  request?: RequestLimits;
}

export interface ReceivePackRequest {
  /** Client bytes: stdin, a socket, or an HTTP body. */
  input: AsyncIterable<Uint8Array>;
  output: ResponseSink;
  /** GIT_PROTOCOL's value. */
  protocol?: string;
  statelessRpc?: boolean;
  advertiseRefs?: boolean;
  /** Where messages go when the client did not ask for side-band (a stdio server's stderr). */
  stderr?: (text: string) => void;
  /** Hooks as functions, run after the scripts in hooks/. */
  hooks?: ReceiveHooks;
  /** Run the repository's hook scripts (default true). */
  hookScripts?: boolean;
  /** Asked about every ref update before pre-receive; a refusal fails that ref alone, or the whole push when it is atomic. */
  authorize?: AuthorizeUpdate;
  limits?: ReceivePackLimits;
  /** Environment for hooks (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Threads for resolving deltas. */
  threads?: number;
  signal?: AbortSignal;
  /** Names the input in error messages. */
  source?: string;
}

export interface CommandResult extends PushCommand {
  /** null: updated (or left alone as an alias of another updated ref). */
  readonly error: string | null;
}

export interface ReceivePackResult {
  /** null when the client sent no commands (or only asked for the advertisement). */
  readonly unpackError: string | null;
  readonly commands: CommandResult[];
}

interface Command extends PushCommand {
  error: string | null;
  skipUpdate: boolean;
  didNotExist: boolean;
}

const KEEPALIVE = Buffer.from('0005\x01', 'latin1');

export async function receivePack(repo: Repository, req: ReceivePackRequest): Promise<ReceivePackResult> {
  const env = req.env ?? process.env;
  const config = repo.loadConfig(env);
  const workTree = repo.workTree ?? inferWorkTree(repo.gitDir, config);
  const policy = readReceivePolicy(config, repo.gitDir, workTree === null);
  // Run in a linked work tree's git directory, the main work tree is still there, and git's
  // find_shared_symref protects its branch too: get_main_worktree finds it from the common
  // directory, bare as the repository is.
  const mainWorkTree = path.resolve(repo.gitDir) === path.resolve(repo.commonDir) ? workTree : inferWorkTree(repo.commonDir, config);
  const refs = repo.openRefs(env);
  const out = new Response(req.output);
  const version = protocolVersion(req.protocol);
  if (req.advertiseRefs || !req.statelessRpc) {
    out.write(advertisement(refs, policy, version === 1));
    await out.drain();
  }
  if (req.advertiseRefs) return { unpackError: null, commands: [] };

  const source = req.source ?? 'receive-pack input';
  const limits = req.limits ?? {};
  const input = new PacketReader(limitInput(req.input, source, (limits.timeout ?? 0) * 1000), source);
  const request = await readPushRequest(input, limits.request ?? DEFAULT_REQUEST_LIMITS).catch(async (e: unknown) => {
    if (e instanceof GitError) {
      out.write(formatErr(e.message));
      await out.drain().catch(() => undefined);
    }
    throw e;
  });
  if (!request) return { unpackError: null, commands: [] };
  const caps = request.capabilities;
  const format = findCapability(caps, 'object-format')?.value ?? 'sha1';
  if (format !== 'sha1') throw new GitError('server', 'unsupported', `unsupported object format '${format}'`);
  const s = new PushSession(repo, refs, policy, out, caps, mainWorkTree, req, env, request.shallows);
  const pushOptions = s.usePushOptions ? await readPushOptions(input, limits.request ?? DEFAULT_REQUEST_LIMITS) : [];
  const commands: Command[] = request.commands.map((c) => ({ ...c, error: null, skipUpdate: false, didNotExist: false }));
  let unpackError: string | null = null;
  let quarantine: Quarantine | null = null;
  let unpacked: Unpacked | null = null;
  try {
    try {
      if (!commands.every(isDeletion)) {
        quarantine = Quarantine.create(repo.odb.objectsDir);
        try {
          unpacked = await unpack(input.rest(), quarantine, repo.odb, commands.filter((c) => !isDeletion(c)).map((c) => fromHex(c.newOid)!), {
            fsck: policy.fsck,
            gitmodules: checkGitmodulesBlob,
            maxInputSize: policy.maxInputSize || limits.maxInputSize || 0,
            maxObjects: limits.maxObjects ?? 0,
            unpackLimit: policy.unpackLimit,
            looseCompression: policy.looseCompression,
            keepMessage: `receive-pack ${process.pid} on ${os.hostname()}`,
            ...(s.sideband && !s.quiet ? { progress: progressText((text) => s.message(text)) } : {}),
            threads: req.threads,
            open: s.newShallow.length > 0,
            signal: req.signal,
            onInputEnd: () => s.startKeepAlive(),
          });
        } catch (e) {
          if (!(e instanceof UnpackError) || req.signal?.aborted) throw e;
          unpackError = e.status;
          s.message(`fatal: ${e.message}\n`);
        }
      }
      s.startKeepAlive();
      await s.execute(commands, unpackError, unpacked, quarantine, pushOptions);
    } finally {
      quarantine?.remove();
      // The refs point at the kept pack's objects now (or the push failed): a gc may have them.
      if (unpacked?.keepName) fs.rmSync(path.join(repo.odb.objectsDir, 'pack', unpacked.keepName), { force: true });
    }
    s.report(commands, unpackError);
    await out.drain();
    await s.postHooks(commands, pushOptions);
  } finally {
    s.stopKeepAlive();
  }
  // Nothing may be deleted from a precious-objects repository, which is what the repack would do.
  if (policy.autoGc && !unpackError && !repo.format.preciousObjects) startAutoGc(repo.commonDir, repo.odb.objectsDir, policy, env);
  if (s.sideband) out.write(FLUSH_PKT);
  await out.drain();
  return { unpackError, commands: commands.map(({ oldOid, newOid, name, error }) => ({ oldOid, newOid, name, error })) };
}

function advertisement(refs: RefStore, policy: ReceivePackPolicy, version1: boolean): Buffer {
  const caps: Capability[] = ['report-status', 'report-status-v2', 'delete-refs', 'side-band-64k', 'quiet'].map((name) => ({ name }));
  if (policy.advertiseAtomic) caps.push({ name: 'atomic' });
  if (policy.ofsDelta) caps.push({ name: 'ofs-delta' });
  if (policy.advertisePushOptions) caps.push({ name: 'push-options' });
  caps.push({ name: 'object-format', value: 'sha1' }, { name: 'agent', value: AGENT });
  const shown = refs.list('refs/').filter((r) => !isHiddenRef(r.name, policy.hideRefs)).map((r) => ({ name: r.name, oid: r.oid }));
  return formatRefAdvertisement(shown, caps, { version1 });
}

class PushSession {
  readonly sideband: boolean;
  readonly quiet: boolean;
  readonly usePushOptions: boolean;
  private readonly atomic: boolean;
  private readonly reportStatus: boolean;
  private keepAlive: NodeJS.Timeout | null = null;
  private lastWrite = Date.now();
  private readonly hookSettings: ScriptHookSettings;
  /**
   * The work trees with a branch checked out, read once per push as git's execute_commands reads
   * them (get_worktrees): the main one first (unless bare), then the linked ones.
   */
  private worktrees: { all: Worktree[]; branches: ReadonlySet<string> } | null = null;

  /** The pusher's shallow commits that this repository lacks (git's "theirs" in prepare_shallow_info). */
  readonly newShallow: readonly string[];

  constructor(readonly repo: Repository, readonly refs: RefStore, readonly policy: ReceivePackPolicy, readonly out: Response,
    caps: readonly Capability[], readonly mainWorkTree: string | null, readonly req: ReceivePackRequest, env: NodeJS.ProcessEnv,
    shallows: readonly string[]) {
    this.newShallow = shallows.filter((oid) => !repo.odb.has(fromHex(oid)!));
    this.sideband = hasCapability(caps, 'side-band-64k');
    this.quiet = hasCapability(caps, 'quiet');
    this.atomic = policy.advertiseAtomic && hasCapability(caps, 'atomic');
    this.usePushOptions = policy.advertisePushOptions && hasCapability(caps, 'push-options');
    this.reportStatus = hasCapability(caps, 'report-status') || hasCapability(caps, 'report-status-v2');
    // githooks(5): the hooks of a push always run in $GIT_DIR, work tree or not (git's receive-pack
    // has entered the repository's git directory), and see GIT_DIR=. there.
    this.hookSettings = { commonDir: repo.commonDir, cwd: repo.gitDir, hooksPath: policy.hooksPath, env, gitDirEnv: '.' };
  }

  /** Text for the client: side-band 2 (the client shows "remote: ..."), else the server's stderr. */
  message(text: string | Buffer): void {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    if (this.sideband) this.send(encodeSideband(2, bytes, 'side-band-64k'));
    else this.req.stderr?.(bytes.toString('utf8'));
  }

  private error(text: string): void {
    this.message(`error: ${text}\n`);
  }

  private warning(text: string): void {
    this.message(`warning: ${text}\n`);
  }

  private send(data: Buffer): void {
    this.lastWrite = Date.now();
    this.out.write(data);
  }

  /** git's keep-alive: an empty side-band 1 packet whenever nothing was sent for receive.keepAlive seconds. */
  startKeepAlive(): void {
    const every = this.policy.keepAlive * 1000;
    if (!this.sideband || every <= 0 || this.keepAlive) return;
    this.keepAlive = setInterval(() => {
      if (Date.now() - this.lastWrite >= every) this.send(KEEPALIVE);
    }, Math.min(every, 1000));
    this.keepAlive.unref();
  }

  stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = null;
  }

  /** git's execute_commands. */
  async execute(commands: Command[], unpackError: string | null, unpacked: Unpacked | null, quarantine: Quarantine | null,
    pushOptions: readonly string[]): Promise<void> {
    if (unpackError !== null) {
      for (const c of commands) c.error = 'unpacker error';
      return;
    }
    const odb = quarantine ? quarantineDatabase(quarantine, this.repo.odb) : this.repo.odb;
    try {
      this.checkConnected(commands, odb, unpacked);
      for (const c of commands) {
        if (c.error || !isHiddenRef(c.name, this.policy.hideRefs)) continue;
        c.error = isDeletion(c) ? 'deny deleting a hidden ref' : 'deny updating a hidden ref';
      }
      if (this.req.authorize && !await this.authorize(commands, this.req.authorize)) return;
      const preReceive = await this.runHook('pre-receive', {
        args: [], stdin: hookStdin(commands), env: { ...pushOptionEnv(pushOptions), ...(quarantine?.env(this.hookSettings.env) ?? {}) },
      }, (ctx) => this.req.hooks?.preReceive?.(commands.map(plain), ctx), odb, pushOptions, commands.length > 0);
      if (!preReceive) {
        for (const c of commands) c.error ??= 'pre-receive hook declined';
        return;
      }
    } finally {
      if (odb !== this.repo.odb) {
        // Its packs are the quarantine's; the repository behind it stays open.
        odb.alternates.splice(0);
        odb.close();
      }
    }
    if (commands.every((c) => c.error)) return;
    if (quarantine) {
      try {
        quarantine.migrate();
        // The repository's object lists predate the objects just moved in.
        this.repo.odb.refresh();
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        this.error(e.message);
        for (const c of commands) c.error ??= 'unable to migrate objects to permanent storage';
        return;
      }
    }
    this.checkAliasedUpdates(commands);
    const head = this.refs.head();
    if (this.atomic) await this.executeAtomic(commands, head.symref, pushOptions);
    else await this.executeEach(commands, head.symref, pushOptions);
  }

  /**
   * The embedder's verdict on each update still standing. An atomic push is refused whole at the
   * first refusal (false returned), as one of update()'s refusals refuses it: with hooks and
   * rules, all or nothing.
   */
  private async authorize(commands: Command[], authorize: AuthorizeUpdate): Promise<boolean> {
    for (const c of commands) {
      if (c.error) continue;
      const verdict = await authorize(plain(c));
      if (verdict === true) continue;
      // An empty reason is no reason, and must not read as no error.
      c.error = (typeof verdict === 'string' && verdict) || 'refused by the server';
      if (!this.atomic) continue;
      for (const other of commands) other.error ??= 'atomic push failure';
      return false;
    }
    return true;
  }

  private checkConnected(commands: Command[], odb: ObjectDatabase, unpacked: Unpacked | null): void {
    const updating = commands.filter((c) => !c.error && !isDeletion(c));
    if (updating.length === 0) return;
    // The tips were asked about in the order of the commands that are not deletions.
    const inPack = unpacked?.inPack ?? [];
    const closed = unpacked !== null && unpacked.outsideReferences === 0 && inPack.every(Boolean);
    if (closed) return;
    const visible = this.refs.list('refs/').filter((r) => !isHiddenRef(r.name, this.policy.hideRefs));
    const tips = updating.map((c) => fromHex(c.newOid)!);
    if (odb !== this.repo.odb && connectedThroughBases(odb, tips, new Set(visible.map((r) => r.oid)))) return;
    const existing = visible.map((r) => fromHex(r.oid)!);
    if (connectivityGap(odb, tips, existing) === null) return;
    // git's set_connectivity_errors: which of them is it?
    for (const c of updating) {
      const missing = connectivityGap(odb, [fromHex(c.newOid)!], existing);
      if (missing === null) continue;
      // A ref that needs the pusher's boundary, which this repository lacks: git refuses to take
      // the boundary unless receive.shallowUpdate is set (tsgit does not support it).
      if (this.newShallow.length > 0) {
        c.error = 'shallow update not allowed';
        continue;
      }
      this.error(`${c.name}: ${missing}`);
      c.error = 'missing necessary objects';
    }
  }

  /** git's check_aliased_updates: a symbolic ref pushed together with the ref it names. */
  private checkAliasedUpdates(commands: Command[]): void {
    const byName = new Map(commands.map((c) => [c.name, c]));
    for (const c of commands) {
      if (c.error || !c.name.startsWith('refs/') || checkRefFormat(c.name) !== null) continue;
      let raw;
      try {
        raw = this.refs.readRaw(c.name);
      } catch {
        continue;
      }
      if (raw?.type !== 'symbolic') continue;
      const dst = byName.get(raw.target);
      if (!dst) continue;
      c.skipUpdate = true;
      if (dst.oldOid === c.oldOid && dst.newOid === c.newOid) continue;
      dst.skipUpdate = true;
      this.error(`refusing inconsistent update between symref '${c.name}' (${c.oldOid.slice(0, 7)}..${c.newOid.slice(0, 7)}) and its target '${dst.name}' (${dst.oldOid.slice(0, 7)}..${dst.newOid.slice(0, 7)})`);
      c.error = dst.error = 'inconsistent aliased update';
    }
  }

  private async executeAtomic(commands: Command[], headName: string | null, pushOptions: readonly string[]): Promise<void> {
    const tx = this.refs.transaction();
    let failed = false;
    const atCommit: string[] = [];
    for (const c of commands) {
      if (c.error || c.skipUpdate) continue;
      c.error = await this.update(c, headName, tx, pushOptions, atCommit);
      if (c.error) { failed = true; break; }
    }
    if (!failed) {
      try {
        if (atCommit.length > 0) throw new GitError('refs', 'not-a-commit', atCommit[0]!);
        tx.commit({ atomic: true });
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        this.error(e.message);
        for (const c of commands) c.error ??= 'atomic transaction failed';
        return;
      }
      return;
    }
    for (const c of commands) c.error ??= 'atomic push failure';
  }

  /** Deletions first, then the rest (so a ref may be replaced by one below it): each ref on its own. */
  private async executeEach(commands: Command[], headName: string | null, pushOptions: readonly string[]): Promise<void> {
    for (const deletions of [true, false]) {
      const tx = this.refs.transaction();
      const queued: Command[] = [];
      for (const c of commands) {
        if (c.error || c.skipUpdate || isDeletion(c) !== deletions) continue;
        c.error = await this.update(c, headName, tx, pushOptions);
        if (!c.error) queued.push(c);
      }
      if (tx.size === 0) continue;
      const outcomes = tx.commit({ atomic: false });
      for (let i = 0; i < outcomes.length; i++) {
        const failure = outcomes[i]!.error;
        if (!failure) continue;
        this.error(failure.code === 'duplicate-update' ? secondUpdateRefusal(queued, outcomes, i) ?? failure.message : failure.message);
        queued[i]!.error = deletions ? 'failed to delete' : 'failed to update ref';
      }
    }
  }

  /**
   * git's update(): the rules (update-rules.ts), the update hook, then `tx`; or why not. A value
   * git's ref backend would refuse when the transaction commits (a non-commit on a branch) is, in
   * an atomic push, left out of `tx` and added to `atCommit`, which fails the whole transaction.
   */
  private async update(c: Command, headName: string | null, tx: RefTransaction, pushOptions: readonly string[],
    atCommit?: string[]): Promise<string | null> {
    const name = c.name;
    const deleting = isDeletion(c);
    const odb = this.repo.odb;
    if (!this.worktrees) {
      const all = allWorktrees(this.repo.commonDir, this.mainWorkTree);
      this.worktrees = { all, branches: new Set(all.flatMap((w) => (w.branch ? [w.branch] : []))) };
    }
    const rules = {
      policy: this.policy, headName, odb, checkedOut: this.worktrees.branches,
      error: (text: string) => this.error(text), warning: (text: string) => this.warning(text),
    };
    const refused = refusal(rules, c);
    if (refused) return refused;
    const accepted = await this.runHook('update', { args: [name, c.oldOid, c.newOid], stdin: null, env: {} },
      (ctx) => this.req.hooks?.update?.(plain(c), ctx), odb, pushOptions, true);
    if (!accepted) {
      this.error(`hook declined to update ${name}`);
      return 'hook declined';
    }
    if (updatesWorkTree(rules, c)) {
      // The main work tree first, as git's find_shared_symref looks.
      const { gitDir, path: top } = this.worktrees.all.find((w) => w.branch === name)!;
      if (top === null) return 'denyCurrentBranch = updateInstead needs a worktree';
      const failed = await updateWorktree({
        repo: this.repo, env: this.hookSettings.env,
        hookSettings: this.req.hookScripts === false ? null : this.hookSettings,
        // git runs push-to-checkout and read-tree without the side-band: their output goes to
        // receive-pack's stderr (the client shows it without "remote: " over ssh or file://).
        message: (text) => (this.req.stderr ? this.req.stderr(typeof text === 'string' ? text : text.toString('utf8')) : this.message(text)),
      }, { gitDir, path: top, head: this.refs.resolve(name)?.oid ?? null }, c.newOid);
      if (failed) return failed;
    }
    if (deleting) {
      // As git: an old value we do not have (the zero id included) is not checked.
      let expected: string | undefined = c.oldOid;
      if (c.oldOid === ZERO_HEX || !odb.has(fromHex(c.oldOid)!)) {
        expected = undefined;
        if (this.refs.resolve(name) !== null) this.warning('allowing deletion of corrupt ref');
        else {
          this.warning('deleting a non-existent ref');
          c.didNotExist = true;
        }
      }
      tx.delete(name, expected, 'push');
    } else {
      const notCommit = nonCommitOnBranch(odb, c);
      if (notCommit !== null) {
        if (atCommit) {
          atCommit.push(notCommit);
          return null;
        }
        this.error(notCommit);
        return 'failed to update ref';
      }
      tx.update(name, c.newOid, c.oldOid === ZERO_HEX ? null : c.oldOid, 'push');
    }
    return null;
  }

  /**
   * A hook: the script (if any) then the function (if any). Returns false when either refused.
   * `odb` is what a hook function may read (the quarantine before migration).
   */
  private async runHook(name: HookName, run: { args: string[]; stdin: string | null; env: Record<string, string> },
    fn: (ctx: HookContext) => unknown, odb: ObjectDatabase, pushOptions: readonly string[], wanted: boolean): Promise<boolean> {
    if (!wanted) return true;
    if (this.req.hookScripts !== false) {
      const file = findHook(this.hookSettings, name, (text) => this.message(text));
      if (file) {
        const status = await runHookScript(file, this.hookSettings, run, (chunk) => this.message(chunk));
        if (status !== 0) return false;
      }
    }
    const verdict = await fn({ pushOptions, odb, print: (text) => this.message(text) });
    return verdict !== false;
  }

  /** report-status (or -v2): band 1 when side-band was asked for, plain pkt-lines otherwise. */
  report(commands: readonly Command[], unpackError: string | null): void {
    if (!this.reportStatus) return;
    const report = formatStatusReport({ unpackError, refs: commands.map((c) => ({ name: c.name, error: c.error })) });
    this.send(this.sideband ? encodeSideband(1, report, 'side-band-64k') : report);
  }

  /** post-receive and post-update, for the refs that were updated. */
  async postHooks(commands: readonly Command[], pushOptions: readonly string[]): Promise<void> {
    const done = commands.filter((c) => !c.error && !c.didNotExist);
    if (done.length === 0) return;
    const odb = this.repo.odb;
    await this.runHook('post-receive', { args: [], stdin: hookStdin(done), env: pushOptionEnv(pushOptions) },
      async (ctx) => { await this.req.hooks?.postReceive?.(done.map(plain), ctx); }, odb, pushOptions, true);
    await this.runHook('post-update', { args: done.map((c) => c.name), stdin: null, env: {} },
      async (ctx) => { await this.req.hooks?.postUpdate?.(done.map((c) => c.name), ctx); }, odb, pushOptions, true);
  }
}

function plain(c: Command): PushCommand {
  return { oldOid: c.oldOid, newOid: c.newOid, name: c.name };
}

/** The quarantine's objects, with the repository's behind them (what pre-receive sees). */
function quarantineDatabase(q: Quarantine, main: ObjectDatabase): ObjectDatabase {
  const db = new ObjectDatabase(q.dir, new DeltaBaseCache(16 << 20));
  db.alternates.push(main);
  return db;
}

/** A repository opened without a work tree is bare unless its config and layout say otherwise. */
function inferWorkTree(gitDir: string, config: Config): string | null {
  const bare = config.getBool('core', null, 'bare');
  if (bare === true) return null;
  const configured = config.get('core', null, 'worktree');
  if (configured !== undefined) return path.resolve(gitDir, configured);
  return path.basename(gitDir) === '.git' && bare === false ? path.dirname(gitDir) : null;
}

/**
 * git's receive-pack updates each ref in a transaction of its own, so a second update of one ref
 * (a client that sent it twice) meets the value the first left, and fails at the ref's lock in the
 * lock's words; tsgit's one transaction finds the duplicate instead. The words git's lock says,
 * from the first update of the ref that went through; null when none did.
 */
function secondUpdateRefusal(queued: readonly Command[], outcomes: readonly { error: GitError | null }[], i: number): string | null {
  const c = queued[i]!;
  const first = queued.findIndex((q, k) => k < i && q.name === c.name && !outcomes[k]!.error);
  if (first < 0) return null;
  const at = queued[first]!.newOid;
  if (c.oldOid === ZERO_HEX) return `cannot lock ref '${c.name}': reference already exists`;
  return at === c.oldOid ? null : `cannot lock ref '${c.name}': is at ${at} but expected ${c.oldOid}`;
}
