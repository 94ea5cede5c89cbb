// A bare repository whose main edits a set of text files commit after commit: the history behind
// the pack tests' long delta chains. Each test says how many files and lines, and which commit
// edits which file how; the commits and the import are the same for all.
import fs from 'node:fs';
import { git } from './helpers.js';

/**
 * Makes the bare repository `dir` with `commits` commits on main. `files` holds each file's lines;
 * commit c writes file f (at `pathOf(f)`) when `edit(c, f, lines)` changed its lines in place and
 * returned true. Commit c is dated 1700000000 + 100c.
 */
export function makeEditedFilesRepo(dir: string, files: string[][], commits: number,
  edit: (commit: number, file: number, lines: string[]) => boolean, pathOf: (file: number) => string): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const script: string[] = [];
  for (let c = 1; c <= commits; c++) {
    script.push('commit refs/heads/main', `committer C <c@example.com> ${1700000000 + c * 100} +0000`, 'data 3', `c${c}`);
    for (let f = 0; f < files.length; f++) {
      if (!edit(c, f, files[f]!)) continue;
      const body = files[f]!.join('\n') + '\n';
      script.push(`M 100644 inline ${pathOf(f)}`, `data ${Buffer.byteLength(body)}`, body);
    }
  }
  script.push('');
  git(dir, ['fast-import', '--quiet'], script.join('\n'));
}
