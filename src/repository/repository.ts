// One repository: the object database, refs and config, opened once and owning every cache
// (delta bases, pack windows, packed-refs), so nothing is a module-level global.
import path from 'node:path';
import { DeltaBaseCache } from '../odb/delta-base-cache.js';
import { ObjectDatabase } from '../odb/database.js';
import { discover } from './discover.js';

export interface RepositoryOptions {
  /** Bytes of inflated delta bases to keep (git: core.deltaBaseCacheLimit, 96 MiB). */
  deltaBaseCacheLimit?: number;
}

export class Repository {
  readonly odb: ObjectDatabase;

  constructor(readonly gitDir: string, readonly workTree: string | null, options: RepositoryOptions = {}) {
    this.odb = new ObjectDatabase(process.env.GIT_OBJECT_DIRECTORY ?? path.join(gitDir, 'objects'),
      new DeltaBaseCache(options.deltaBaseCacheLimit));
  }

  static discover(cwd: string, env: NodeJS.ProcessEnv = process.env): Repository {
    const loc = discover(cwd, env);
    return new Repository(loc.gitDir, loc.workTree);
  }

  close(): void {
    this.odb.close();
  }
}
