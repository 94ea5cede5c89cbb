// The system's words for a failed call, as strerror gives them, for messages that repeat git's.

/** strerror's text for the error's code, else the error's own message. */
export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'No such file or directory', EACCES: 'Permission denied', EEXIST: 'File exists', ENOTDIR: 'Not a directory',
    EISDIR: 'Is a directory', EROFS: 'Read-only file system', ENOSPC: 'No space left on device', ENOTEMPTY: 'Directory not empty',
  };
  return (code && words[code]) ?? (e as Error).message;
}
