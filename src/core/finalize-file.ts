// git's finalize_object_file: a finished temporary file moves to the name its content decides
// (an object's or a pack's hash). If that name exists, it already holds the same bytes, and it
// stays as it is: linking, unlike renaming, never replaces it.
import fs from 'node:fs';

export function finalizeObjectFile(src: string, dst: string): void {
  try {
    fs.linkSync(src, dst);
  } catch (e) {
    // Filesystems without hard links: a rename, which must not replace an existing file either.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' && !fs.existsSync(dst)) {
      fs.renameSync(src, dst);
      return;
    }
  }
  fs.rmSync(src, { force: true });
}
