// The remotes of git's older layouts, which git 2.39's remote.c still reads for a remote the config
// gives no URL: `$GIT_COMMON_DIR/remotes/<name>` (read_remotes_file) and `branches/<name>`
// (read_branches_file). What they hold is added to the remote as remotes.ts finds it.
import fs from 'node:fs';
import path from 'node:path';

export interface RemoteFile {
  readonly urls: string[];
  readonly push: string[];
  readonly fetch: string[];
}

/** git's isspace: space, tab, LF and CR (not \v or \f). */
const SPACE = '[ \\t\\n\\r]';
const LINE = new RegExp(`^(URL|Push|Pull):${SPACE}*(.*?)${SPACE}*$`, 's');

/** `remotes/<name>`: its `URL:`, `Push:` and `Pull:` lines; null when there is no such file. */
export function readRemotesFile(commonDir: string, name: string): RemoteFile | null {
  const text = readText(path.join(commonDir, 'remotes', name));
  if (text === null) return null;
  const file = { urls: [] as string[], push: [] as string[], fetch: [] as string[] };
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m) (m[1] === 'URL' ? file.urls : m[1] === 'Push' ? file.push : file.fetch).push(m[2]!);
  }
  return file;
}

/**
 * `branches/<name>`: one line `<url>[#<branch>]`, fetching that branch (`defaultBranch` when none
 * is named) into refs/heads/<name> and pushing HEAD to it; null without the file or its line.
 */
export function readBranchesFile(commonDir: string, name: string, defaultBranch: string): RemoteFile | null {
  const text = readText(path.join(commonDir, 'branches', name));
  const line = text?.split('\n')[0]!.replace(new RegExp(`^${SPACE}+|${SPACE}+$`, 'g'), '') ?? '';
  if (line === '') return null;
  const hash = line.indexOf('#');
  const url = hash < 0 ? line : line.slice(0, hash);
  const branch = hash < 0 ? defaultBranch : line.slice(hash + 1);
  return { urls: [url], fetch: [`refs/heads/${branch}:refs/heads/${name}`], push: [`HEAD:refs/heads/${branch}`] };
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
