// The clean side of filter drivers, for reading a work-tree file back to compare it with its
// blob (git's ce_compare_data -> index_fd -> convert_to_git): a file whose `filter` attribute
// names a driver is hashed as its clean filter's output. The attributes are those of the commit
// the work tree holds (git reads the work tree's .gitattributes for this direction; they are
// that commit's unless edited), plus info/attributes and the global and system files.
import { GitError } from '../../core/errors.js';
import { MODE_BLOB, MODE_EXEC } from '../../object/tree.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { AttributeChecker, type AttrFrame } from '../attributes/check.js';
import type { CheckoutSettings } from '../checkout/settings.js';
import { displayPath } from '../checkout/path-check.js';
import { requiredFilterFailed, runsFor, type FilterDriver } from '../filter/driver.js';
import type { FilterRunner } from '../filter/filters.js';
import type { TreeEntryInfo } from './tree-entries.js';

const FILTER = ['filter'];

export class CleanFilters {
  private readonly checker: AttributeChecker;
  /** Each directory's frames (path key, '' for the root), deepest first. */
  private readonly frames = new Map<string, AttrFrame[]>();

  constructor(private readonly odb: ObjectStore, private readonly tree: ReadonlyMap<string, TreeEntryInfo>,
    settings: CheckoutSettings, private readonly drivers: ReadonlyMap<string, FilterDriver>, private readonly runner: FilterRunner) {
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

  /** The .gitattributes file of directory `dir`, if the tree has one as a regular file. */
  private attributesFile(dir: string): Buffer | null {
    const e = this.tree.get(dir ? `${dir}/.gitattributes` : '.gitattributes');
    if (!e || (e.mode !== MODE_BLOB && e.mode !== MODE_EXEC)) return null;
    try {
      return this.odb.mustRead(e.oid, 0, OBJ_BLOB).data;
    } catch (err) {
      throw new GitError('worktree', 'bad-object', `cannot read '${dir ? `${dir}/` : ''}.gitattributes': ${(err as Error).message}`, { cause: err });
    }
  }
}
