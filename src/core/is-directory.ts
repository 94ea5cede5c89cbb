// Whether a path is a directory, following symbolic links; false for anything that cannot be
// stat'ed (missing, unreadable, a name too long), as callers probing for a repository want.
import fs from 'node:fs';

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
