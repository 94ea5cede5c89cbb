// `info/attributes`, the repository's own attributes file, as git 2.39's attr.c finds it
// (git_path_info_attributes): git_path("info/attributes"), which path.c takes to the common
// directory (info/ is shared by every work tree), named as git_path joins it: from the top of the
// work tree when the repository is its .git (git works from there), else by the directory's path.
import path from 'node:path';

export function infoAttributesFile(commonDir: string, workTree: string | null): { path: string; name: string } {
  const file = path.join(commonDir, 'info', 'attributes');
  const atTop = workTree !== null && path.resolve(commonDir) === path.resolve(workTree, '.git');
  return { path: file, name: atTop ? '.git/info/attributes' : file };
}
