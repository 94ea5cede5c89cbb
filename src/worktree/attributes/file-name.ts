// Which paths are in-tree attributes files. git builds `<dir>/.gitattributes` and looks that name
// up exactly, in the index (index_name_pos) or the work tree (open): a `.GitAttributes` is an
// ordinary file, even with core.ignoreCase (only a case-insensitive file system would open it).
// is_ntfs_dotgitattributes's other spellings count only where git refuses a symbolic link by them
// (object/path-names.ts), not here.

const NAME = Buffer.from('.gitattributes');

/** Whether the name `bytes[start, end)` (a tree entry's, a path component) is `.gitattributes`. */
export function isAttributesName(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  if (end - start !== NAME.length) return false;
  for (let i = 0; i < NAME.length; i++) if (bytes[start + i] !== NAME[i]) return false;
  return true;
}

/** Whether the last component of `path` (slash-separated, no trailing slash) is `.gitattributes`. */
export function isAttributesPath(path: Uint8Array): boolean {
  return isAttributesName(path, path.lastIndexOf(0x2f) + 1);
}
