// The empty repository a clone starts from, laid out as `git init` lays it out (minus hooks):
// HEAD, config, description, info/exclude, objects/{info,pack}, refs/{heads,tags}.
import fs from 'node:fs';
import path from 'node:path';
import { initialConfigText } from '../config/index.js';

const DESCRIPTION = "Unnamed repository; edit this file 'description' to name the repository.\n";
const EXCLUDE = `# git ls-files --others --exclude-from=.git/info/exclude
# Lines that start with '#' are comments.
# For a project mostly in C, the following would be a good set of
# exclude patterns (uncomment them if you want to use them):
# *.[oa]
# *~
`;

/** Creates the repository in `gitDir` (which may exist and be empty); HEAD names `initialBranch`. */
export function initRepository(gitDir: string, opts: { bare: boolean; initialBranch: string }): void {
  for (const dir of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags', 'info']) {
    fs.mkdirSync(path.join(gitDir, dir), { recursive: true });
  }
  fs.writeFileSync(path.join(gitDir, 'HEAD'), `ref: refs/heads/${opts.initialBranch}\n`);
  fs.writeFileSync(path.join(gitDir, 'config'), initialConfigText({ bare: opts.bare }));
  fs.writeFileSync(path.join(gitDir, 'description'), DESCRIPTION);
  fs.writeFileSync(path.join(gitDir, 'info', 'exclude'), EXCLUDE);
}
