// GIT_REFLOG_ACTION against git 2.39, in two copies of a clone: fetch writes "<action>: <what>"
// with it for the action (every fetch: remote add -f, --all, ...), while push's remote-tracking
// refs keep "update by push", and checkout writes it as HEAD's whole entry; an empty reflog file is appended to even where
// core.logAllRefUpdates would make none.
import { after, test } from 'node:test';
import { GIT_ENV, rmrf, tmpDir } from './helpers.js';
import fs from 'node:fs';
import { clonedTemplate, compareInCopies } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-reflog-action-'));
after(() => rmrf(root));
const { template } = clonedTemplate(root);

// up.git gains side (a fast-forward for origin/side) and newb, whose reflog file is there, empty.
const prepare = [
  ['commit', '-q', '--allow-empty', '-m', 'two'], ['push', '-q', '../up.git', 'HEAD:refs/heads/side', 'HEAD:refs/heads/newb'],
  ['config', 'core.logAllRefUpdates', 'false'],
  // git's own programs serve both copies: a tsgit one would be a process more to start.
  ['config', 'remote.origin.uploadpack', 'git-upload-pack'], ['config', 'remote.origin.receivepack', 'git-receive-pack'],
];
const files = { '.git/logs/refs/remotes/origin/newb': '' };

test('GIT_REFLOG_ACTION names the action of fetch\'s reflog entries and is checkout\'s whole entry, not push\'s', () => {
  compareInCopies(template, root, {
    name: 'reflog-action', prepare, files, env: { ...GIT_ENV, GIT_REFLOG_ACTION: 'pull origin' },
    steps: [['fetch'], ['push', 'origin', 'HEAD:refs/heads/pushed'], ['checkout', '-q', 'origin/side']],
  }, 'work');
});
