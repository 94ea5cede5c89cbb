// One repository: the object database, refs and config, opened once and owning every cache
// (delta bases, pack windows, packed-refs, and what the layers above derive from it: `derived`),
// so nothing is a module-level global.
import path from 'node:path';
import { readNamedCommonDir } from '../core/common-dir.js';
import { Derived } from '../core/derived.js';
import { fromHex } from '../core/oid.js';
import { Config } from '../config/index.js';
import { DeltaBaseCache } from '../odb/delta-base-cache.js';
import { ObjectDatabase } from '../odb/database.js';
import { checkRefPath, FileRefStore, type RefStore, type ResolvedRef } from '../refs/index.js';
import { priorCheckout, reflogAt } from './reflog-at.js';
import { remoteConfigWarnings } from './remotes.js';
import { pushTrackingOf } from './push-tracking.js';
import { upstreamOf } from './upstream.js';
import { RevResolver } from '../rev/resolve.js';
import { discover } from './discover.js';
import { checkRepositoryFormat, type RepositoryFormat } from './format.js';
import { readShallow } from './shallow-file.js';

export interface RepositoryOptions {
  /** Bytes of inflated delta bases to keep (git: core.deltaBaseCacheLimit, 96 MiB). */
  deltaBaseCacheLimit?: number;
  /** The common directory, as discovery found it; by default what gitDir's `commondir` file names. */
  commonDir?: string;
  /** What gitDir's `commondir` file names (else gitDir), when discovery has read it. */
  namedCommonDir?: string;
  /**
   * Where GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR and the repository file's includes read the
   * environment from (default process.env): a server opened in another repository's client passes
   * the one git would give its child.
   */
  env?: NodeJS.ProcessEnv;
}

export class Repository {
  private _odb: ObjectDatabase | null = null;
  /** What layers above keep about this repository between requests (server: refs snapshot, bitmap). */
  readonly derived = new Derived();
  private _refs: RefStore | null = null;
  private _config: Config | null = null;

  /** What core.repositoryformatversion and extensions.* say (checked when it opens). */
  readonly format: RepositoryFormat;
  /**
   * Where what the work trees share lives: objects, refs other than HEAD and the per-work-tree
   * ones, packed-refs, config, hooks, info/, shallow, modules/, worktrees/. gitDir itself in an
   * ordinary repository; in a linked work tree (`git worktree add`) gitDir is
   * `<commonDir>/worktrees/<id>` and holds only HEAD, the index and the per-work-tree refs.
   * $GIT_COMMON_DIR, when discovery honoured it, counts for all but refs, as in git (FileRefStore).
   */
  readonly commonDir: string;
  /**
   * What gitDir's `commondir` file names, else gitDir: the file read once, for the refs (which
   * ignore $GIT_COMMON_DIR, as git's files backend does) and the config (which honours it).
   */
  private readonly namedCommonDir: string;

  private readonly objectsDir: string;
  private readonly deltaBaseCacheLimit: number | undefined;
  private readonly env: NodeJS.ProcessEnv;

  constructor(readonly gitDir: string, readonly workTree: string | null, options: RepositoryOptions = {}) {
    this.env = options.env ?? process.env;
    this.namedCommonDir = options.namedCommonDir ?? readNamedCommonDir(gitDir);
    this.commonDir = options.commonDir ?? this.namedCommonDir;
    this.format = checkRepositoryFormat(this.config, this.commonDir);
    this.objectsDir = this.env.GIT_OBJECT_DIRECTORY ?? path.join(this.commonDir, 'objects');
    this.deltaBaseCacheLimit = options.deltaBaseCacheLimit;
  }

  /**
   * Opened on first use, not with the repository: opening scans objects/pack and reads each
   * index's header, which a push would otherwise do before it starts the remote's receive-pack.
   */
  get odb(): ObjectDatabase {
    if (!this._odb) {
      const db = new ObjectDatabase(this.objectsDir, new DeltaBaseCache(this.deltaBaseCacheLimit));
      // What git prints of damaged storage goes where this repository's warnings go.
      db.warn = (text) => this.warn?.(text);
      if (this.shownObjectsDir !== null) db.shownDir = this.shownObjectsDir;
      this._odb = db;
    }
    return this._odb;
  }

  /**
   * The objects directory as git names it in messages (`.git/objects` from the top of a work
   * tree), for the CLI, which knows how git was started; null: the path it was opened by.
   */
  shownObjectsDir: string | null = null;

  static discover(cwd: string, env: NodeJS.ProcessEnv = process.env): Repository {
    const loc = discover(cwd, env);
    return new Repository(loc.gitDir, loc.workTree, loc);
  }

  /** The refs to read; a write through them logs only to reflogs that exist already. */
  get refs(): RefStore {
    return this._refs ??= new FileRefStore(this.gitDir, { namedCommonDir: this.namedCommonDir });
  }

  /**
   * The refs for a command that writes them, configured from `config` (the command's, global
   * files included) or else the config read now: reflogs as core.logAllRefUpdates says, entries
   * signed by user.name/email or `env`'s committer.
   */
  openRefs(env: NodeJS.ProcessEnv = process.env, config?: Config): RefStore {
    return FileRefStore.open(this.gitDir, { env, config, namedCommonDir: this.namedCommonDir });
  }

  /**
   * The configuration git reads here: the system and global files, the repository's (with
   * config.worktree) and the command line's (`-c`, $GIT_CONFIG_PARAMETERS in `env`), read anew.
   * `config` is the repository's file alone, the one edits go to. `includes` false leaves
   * include.path alone (`git config --no-includes`).
   */
  loadConfig(env: NodeJS.ProcessEnv = process.env, { includes = true } = {}): Config {
    return Config.loadSync(this.gitDir, { global: true, env, namedCommonDir: this.namedCommonDir, includes });
  }

  /**
   * The configuration as loadConfig reads it, for a command that reads the remotes in it. The
   * first such read says, where this repository's warnings go, what git's remote.c says as it
   * reads them (remoteConfigWarnings): git reads them once a process.
   */
  remotesConfig(env: NodeJS.ProcessEnv = process.env): Config {
    const config = this.loadConfig(env);
    if (!this.remotesRead) {
      this.remotesRead = true;
      for (const text of remoteConfigWarnings(config)) this.warn?.(text);
    }
    return config;
  }

  private remotesRead = false;

  get config(): Config {
    return this._config ??= Config.loadSync(this.gitDir, { namedCommonDir: this.namedCommonDir, env: this.env });
  }

  /** The commits listed in $GIT_COMMON_DIR/shallow (a shallow clone's boundary), as raw ids. */
  shallowCommits(): Uint8Array[] {
    return readShallow(this.commonDir).map((hex) => fromHex(hex)!);
  }

  /**
   * Where revision lookups say what git warns of on stderr (a name several refs answer to, with
   * core.warnAmbiguousRefs on), and the object database what git says of damaged storage (a pack
   * that does not match its index): the CLI's stderr; null, the default, says nothing.
   */
  warn: ((text: string) => void) | null = null;

  /**
   * Resolves revision names (ids, refs, ^ ~ :path suffixes) against this repository; `quiet`
   * keeps what git warns of as it reads a name to itself, as git's GET_OID_QUIETLY.
   */
  revs(options: { quiet?: boolean } = {}): RevResolver {
    const warn = options.quiet ? null : this.warn;
    // The configuration is read when a name first turns out ambiguous, not for every lookup.
    let warnAmbiguous: boolean | undefined;
    const ambiguous = warn ? (name: string) => {
      warnAmbiguous ??= this.loadConfig().getBool('core', null, 'warnambiguousrefs') !== false;
      if (warnAmbiguous) warn(`warning: refname '${name}' is ambiguous.\n`);
    } : undefined;
    return new RevResolver(this.odb, {
      resolveRef: name => this.resolveRef(name), upstream: branch => upstreamOf(this, branch),
      pushTracking: branch => pushTrackingOf(this, branch), reflogAt: (ref, when) => reflogAt(this, ref, when, warn),
      priorCheckout: n => priorCheckout(this, n), ...(ambiguous ? { ambiguous } : {}),
    });
  }

  /**
   * The id a ref name ends at, as hex; null when there is no such ref or the name is not one refs
   * can hold (revision lookup tries `dot_path`, `refs/dot_path`, ... and only some can be refs).
   */
  resolveRef(name: string): string | null {
    return this.resolveRefChain(name)?.oid ?? null;
  }

  /** As resolveRef, with the names read on the way (the last holds the value). */
  resolveRefChain(name: string): ResolvedRef | null {
    if (checkRefPath(name) !== null) return null;
    return this.refs.resolve(name);
  }

  close(): void {
    this.derived.clear();
    this._odb?.close();
  }
}
