// Before removing a tracked file, make sure no leading directory of its path is a symlink (or
// gone): otherwise unlinking "a/x" after "a" was replaced by a symlink to /etc would delete
// /etc/x. git's has_symlink_or_noent_leading_path, with its per-directory memo.
import fs from 'node:fs';

export class LeadingPathCheck {
  private readonly realDirs = new Map<string, boolean>();

  constructor(private readonly root: string) {}

  /** True when every leading directory of `rel` (a '/'-separated path) is a real directory. */
  safe(rel: Uint8Array): boolean {
    for (let slash = rel.indexOf(0x2f); slash >= 0; slash = rel.indexOf(0x2f, slash + 1)) {
      const key = Buffer.from(rel.buffer, rel.byteOffset, slash).toString('latin1');
      let ok = this.realDirs.get(key);
      if (ok === undefined) {
        try {
          ok = fs.lstatSync(this.fsPath(rel.subarray(0, slash))).isDirectory();
        } catch {
          ok = false;
        }
        this.realDirs.set(key, ok);
      }
      if (!ok) return false;
    }
    return true;
  }

  /** Call after removing directories: what was vetted may be gone. */
  forget(): void {
    this.realDirs.clear();
  }

  fsPath(rel: Uint8Array): Buffer {
    return Buffer.concat([Buffer.from(this.root + '/'), rel]);
  }
}
