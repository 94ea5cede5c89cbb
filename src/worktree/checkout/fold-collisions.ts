// A symlink and a directory whose names differ only in ways some filesystem ignores: case
// (NTFS, APFS, HFS+), HFS+'s ignorable code points, Unicode normalization (HFS+ stores NFD),
// trailing dots and spaces (NTFS). On such a filesystem the directory's files would be written
// through the symlink, wherever it points: libgit2's nasty fixture's symlink1-3 branches and
// git's CVE-2021-21300. Repositories move between systems, so tsgit refuses the pair everywhere.
// Collisions between two regular entries are harmless to safety (O_EXCL stops the second) and
// common in real repositories, so they pass.

const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** The name as a case-insensitive, normalizing, HFS+/NTFS-lenient filesystem would compare it. */
export function foldedName(name: Uint8Array): string {
  return Buffer.from(name.buffer, name.byteOffset, name.length).toString('utf8')
    .replace(HFS_IGNORABLE, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[. ]+$/, '');
}

/**
 * Given a tree's symlink names and directory names (both as byte ranges of `buf`), the first
 * symlink that folds to a directory's name, or null.
 */
export function symlinkDirectoryCollision(buf: Uint8Array, symlinks: number[], dirs: number[]): { link: Uint8Array; dir: Uint8Array } | null {
  if (!symlinks.length || !dirs.length) return null;
  const folded = new Map<string, Uint8Array>();
  for (let k = 0; k < dirs.length; k += 2) {
    const name = buf.subarray(dirs[k]!, dirs[k + 1]!);
    folded.set(foldedName(name), name);
  }
  for (let k = 0; k < symlinks.length; k += 2) {
    const link = buf.subarray(symlinks[k]!, symlinks[k + 1]!);
    const dir = folded.get(foldedName(link));
    if (dir) return { link, dir };
  }
  return null;
}
