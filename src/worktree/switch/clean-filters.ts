// Reading a work-tree file back to compare it with its blob (git's ce_compare_data -> index_fd ->
// convert_to_git): a file whose `filter` attribute names a driver is hashed as its clean filter's
// output, and the built-in conversions (encoding, end of line, ident) are undone as that file's
// attributes say. The attributes are those of the commit the work tree holds (git reads the work
// tree's .gitattributes for this direction; they are that commit's unless edited), plus
// info/attributes and the global and system files: not the attributes of the commit being
// switched to, which git only reads once it writes files.
import fs from 'node:fs';
import type { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { MODE_BLOB, MODE_EXEC } from '../../object/tree.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { AttributeChecker, type AttrFrame } from '../attributes/check.js';
import type { CheckoutSettings } from '../checkout/settings.js';
import { CONVERT_ATTRIBUTES, conversionFor, type Conversion } from '../convert.js';
import { displayPath } from '../checkout/path-check.js';
import { requiredFilterFailed, runsFor, type FilterDriver } from '../filter/driver.js';
import type { FilterRunner } from '../filter/filters.js';
import type { IndexEntry } from '../index-file/entry.js';
import { convertManyToGit } from '../to-git.js';
import { CleanChecks, type CleanCheck } from './clean.js';
import type { TreeEntryInfo } from './tree-entries.js';

const FILTER = ['filter'];

/** A file's content, or null when it cannot be opened (missing, a symlink, a directory). */
function readNoFollow(file: Buffer): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd) : null;
  } finally {
    fs.closeSync(fd);
  }
}

export class CleanFilters {
  private readonly checker: AttributeChecker;
  /** Each directory's frames (path key, '' for the root), deepest first. */
  private readonly frames = new Map<string, AttrFrame[]>();

  /**
   * `root`: the work tree, whose .gitattributes files are read first; `tree`: the commit whose
   * files stand in for those missing there (git falls back to the index).
   */
  constructor(private readonly root: string, private readonly odb: ObjectStore, private readonly tree: ReadonlyMap<string, TreeEntryInfo>,
    private readonly settings: CheckoutSettings, private readonly drivers: ReadonlyMap<string, FilterDriver>,
    private readonly runner: FilterRunner) {
    this.checker = new AttributeChecker({
      info: settings.infoAttributes,
      root: this.attributesFile(''),
      global: settings.globalAttributes,
      system: settings.systemAttributes,
      ignoreCase: settings.ignoreCase,
    });
  }

  /**
   * What git would hash for the work-tree file at `path` holding `data`: the clean filter's
   * output, `data` itself when a filter that is not required fails, or null when no driver
   * applies. A required filter that fails (or has nothing to run) is fatal, as in git.
   */
  async clean(rel: Uint8Array, data: Buffer): Promise<Buffer | null> {
    if (!this.drivers.size) return null;
    const path = Buffer.from(rel.buffer, rel.byteOffset, rel.length);
    const slash = path.lastIndexOf(0x2f);
    const dir = slash < 0 ? '' : path.toString('latin1', 0, slash);
    const name = this.checker.check(path, this.framesOf(dir), FILTER).get('filter');
    const driver = typeof name === 'string' ? this.drivers.get(name) : undefined;
    if (!driver) return null;
    const cleaned = runsFor(driver, 'clean') ? await this.runner.clean(driver, path, data) : null;
    if (cleaned) return Buffer.concat(cleaned);
    if (driver.required) throw requiredFilterFailed('clean', displayPath(path), driver);
    return runsFor(driver, 'clean') ? data : null;
  }

  /**
   * The built-in conversions git undoes reading the regular file at `rel` back (convert_attrs in
   * the check-in direction). Throws, naming the path, where git dies (a working-tree-encoding of
   * true/false).
   */
  conversion(rel: Uint8Array): Conversion {
    const path = Buffer.from(rel.buffer, rel.byteOffset, rel.length);
    const slash = path.lastIndexOf(0x2f);
    const dir = slash < 0 ? '' : path.toString('latin1', 0, slash);
    return conversionFor(this.checker.check(path, this.framesOf(dir), CONVERT_ATTRIBUTES), this.settings, displayPath(path));
  }

  private framesOf(dir: string): AttrFrame[] {
    let frames = this.frames.get(dir);
    if (frames) return frames;
    if (dir === '') {
      frames = this.checker.rootFrame ? [this.checker.rootFrame] : [];
    } else {
      const slash = dir.lastIndexOf('/');
      const inherited = this.framesOf(slash < 0 ? '' : dir.slice(0, slash));
      const own = this.attributesFile(dir);
      frames = own
        ? [this.checker.frameFor(Buffer.from(dir, 'latin1'), own, `${displayPath(Buffer.from(dir, 'latin1'))}/.gitattributes`), ...inherited]
        : inherited;
    }
    this.frames.set(dir, frames);
    return frames;
  }

  /**
   * The .gitattributes file of directory `dir` as git reads it in this direction (attr.c read_attr
   * for GIT_ATTR_CHECKIN): the work tree's file, not followed when a symlink, else the tree's
   * when it has one as a regular file. The two differ when the work tree's was converted on its
   * way out (an encoding, say) or edited.
   */
  private attributesFile(dir: string): Buffer | null {
    const rel = dir ? `${dir}/.gitattributes` : '.gitattributes';
    const onDisk = readNoFollow(Buffer.concat([Buffer.from(`${this.root}/`), Buffer.from(rel, 'latin1')]));
    if (onDisk) return onDisk;
    const e = this.tree.get(rel);
    if (!e || (e.mode !== MODE_BLOB && e.mode !== MODE_EXEC)) return null;
    try {
      return this.odb.mustRead(e.oid, 0, OBJ_BLOB).data;
    } catch (err) {
      throw new GitError('worktree', 'bad-object', `cannot read '${dir ? `${dir}/` : ''}.gitattributes': ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * The CleanCheck of an index whose files are read back through `readBack` (as the switch reads
 * the tree it leaves, and push_to_deploy's diff-files the work tree it would move): git's
 * conversion errors are logged as it reads each file (error() in convert.c), which is then
 * compared as it is.
 */
export function cleanCheckThrough(readBack: CleanFilters, odb: ObjectStore, how: { fileMode: boolean; symlinks: boolean; indexTimestampSec: number; log: (message: string) => void }): CleanCheck {
  const conversionOf = (e: IndexEntry): Conversion | null =>
    e.mode === MODE_BLOB || e.mode === MODE_EXEC ? readBack.conversion(e.path) : null;
  return {
    fileMode: how.fileMode,
    symlinks: how.symlinks,
    indexTimestampSec: how.indexTimestampSec,
    cleaned: files => convertManyToGit(files.map(({ e, data }) => ({
      path: displayPath(e.path), data, conv: conversionOf(e), indexBlob: () => odb.mustRead(e.oid, 0, OBJ_BLOB).data,
    }))).map(r => {
      for (const m of r.messages) how.log(`${m}\n`);
      return r.data;
    }),
    clean: (e, data) => readBack.clean(e.path, data),
  };
}

/** What reading files back takes besides their attributes (workTreeChecks). */
export interface ReadBack {
  config: Config;
  settings: CheckoutSettings;
  drivers: ReadonlyMap<string, FilterDriver>;
  runner: FilterRunner;
  /** The index file's mtime in seconds, 0 for none: entries changed at or after it are racy. */
  indexTimestampSec: number;
  log: (message: string) => void;
}

/**
 * The clean checks of the files under `root`, read back through the work tree's .gitattributes,
 * with those of `attributes` (a commit's or the index's entries) where it has none.
 */
export function workTreeChecks(root: string, odb: ObjectStore, attributes: ReadonlyMap<string, TreeEntryInfo>, how: ReadBack): CleanChecks {
  const readBack = new CleanFilters(root, odb, attributes, how.settings, how.drivers, how.runner);
  const check = cleanCheckThrough(readBack, odb,
    { fileMode: how.config.getBool('core', null, 'filemode') ?? true, symlinks: how.settings.symlinks, indexTimestampSec: how.indexTimestampSec, log: how.log });
  return new CleanChecks(check, e => Buffer.concat([Buffer.from(root + '/'), e.path]));
}
