// The hooks of a push (pre-receive, update, post-receive, post-update) as tsgit receive-pack runs
// them, against git receive-pack running the same scripts: what each saw (arguments, stdin, its
// environment, where it ran, whether the pushed objects were readable) is logged and compared, and
// each hook that refuses must refuse what git's refusal refuses. The same hooks as functions of
// the library (receivePack's `hooks`) are tested in receive-pack-library.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, rmrf, tmpDir } from './helpers.js';
import { commits, quarantines, Twins, workRepo } from './push-helpers.js';

/** A hook that logs what it sees to <repo>/../<repo-name>.log, then exits with `status`. */
function loggingHook(name: string, status: number | string): string {
  return `log="$(pwd)/../$(basename "$(pwd)").log"
{
  echo "== ${name} $*"
  echo "in-repository=$([ -d objects ] && [ -f HEAD ] && echo yes) GIT_DIR=$GIT_DIR"
  echo "options=$GIT_PUSH_OPTION_COUNT:$GIT_PUSH_OPTION_0"
  if [ -n "$GIT_QUARANTINE_PATH" ]; then
    echo "quarantine=$(basename "$GIT_QUARANTINE_PATH" | sed 's/^tmp_objdir-incoming-.*/tmp_objdir-incoming/') objdir-is-quarantine=$([ "$GIT_OBJECT_DIRECTORY" = "$GIT_QUARANTINE_PATH" ] && echo yes)"
    echo "alternates=$(basename "$GIT_ALTERNATE_OBJECT_DIRECTORIES")"
  fi
  if [ "${name}" = pre-receive ] || [ "${name}" = post-receive ]; then
    while read old new ref; do
      echo "stdin $old $new $ref"
      [ "$new" != 0000000000000000000000000000000000000000 ] && echo "readable $(git cat-file -t $new)"
    done
  fi
} >> "$log"
echo "${name} says hello"
exit ${status}`;
}

function logOf(repo: string): string {
  const file = path.join(path.dirname(repo), `${path.basename(repo)}.log`);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  fs.rmSync(file, { force: true });
  return text;
}

describe('hooks of tsgit receive-pack, as git runs them', () => {
  let root: string, work: string, twins: Twins;
  before(() => {
    root = tmpDir('tsgit-rp-hooks-');
    work = workRepo(root, 'work', 2);
    const seed = path.join(root, 'seed.git');
    git(root, ['clone', '-q', '--bare', work, seed]);
    twins = new Twins(root, seed);
    twins.config('receive.advertisePushOptions', 'true');
  });
  after(() => rmrf(root));

  const names = ['pre-receive', 'update', 'post-receive', 'post-update'];
  const clear = () => {
    for (const dir of [twins.ts, twins.git]) for (const n of names) fs.rmSync(path.join(dir, 'hooks', n), { force: true });
  };
  const sameLogs = () => {
    const ts = logOf(twins.ts), theirs = logOf(twins.git);
    assert.ok(ts.length > 0, 'the hooks ran');
    assert.equal(ts, theirs);
    return ts;
  };

  test('every hook accepting: each sees what git shows it', () => {
    for (const n of names) twins.hook(n, loggingHook(n, 0));
    commits(work, 1, 'accept');
    const r = twins.push(work, ['-o', 'opt-one', '<url>', 'main', 'main:refs/heads/copy']);
    assert.equal(r.status, 0);
    for (const n of names) assert.match(r.stderr, new RegExp(`remote: ${n} says hello`));
    const log = sameLogs();
    assert.match(log, /== pre-receive \n/);
    assert.match(log, /quarantine=tmp_objdir-incoming objdir-is-quarantine=yes/);
    assert.match(log, /readable commit/);
    assert.match(log, /== post-update refs\/heads\/main refs\/heads\/copy/);
    clear();
  });

  test('pre-receive refusing: nothing is updated, no object stays', () => {
    twins.hook('pre-receive', loggingHook('pre-receive', 1));
    for (const n of ['update', 'post-receive', 'post-update']) twins.hook(n, loggingHook(n, 0));
    commits(work, 1, 'refused');
    const r = twins.push(work, ['<url>', 'main']);
    assert.match(r.porcelain, /\[remote rejected\] \(pre-receive hook declined\)/);
    const log = sameLogs();
    assert.doesNotMatch(log, /== update|== post-/);
    const head = git(work, ['rev-parse', 'HEAD']).trim();
    assert.equal(catFile(twins.git, head), false, 'git keeps nothing of a refused push');
    assert.equal(catFile(twins.ts, head), false, 'the refused commit is not in the repository');
    assert.deepEqual(quarantines(twins.ts), []);
    clear();
  });

  test('update refusing one ref: the others are updated, post hooks hear of those only', () => {
    twins.hook('update', `${loggingHook('update', '$([ "$1" = refs/heads/copy ] && echo 1 || echo 0)')}`);
    twins.hook('post-receive', loggingHook('post-receive', 0));
    twins.hook('post-update', loggingHook('post-update', 0));
    commits(work, 1, 'partly');
    const r = twins.push(work, ['<url>', 'main', 'main:refs/heads/copy']);
    assert.match(r.porcelain, /refs\/heads\/copy\t\[remote rejected\] \(hook declined\)/);
    assert.match(r.stderr, /remote: error: hook declined to update refs\/heads\/copy/);
    const log = sameLogs();
    assert.match(log, /== post-update refs\/heads\/main\n/);
    clear();
  });

  test('post-receive and post-update failing change nothing', () => {
    twins.hook('post-receive', loggingHook('post-receive', 1));
    twins.hook('post-update', loggingHook('post-update', 1));
    commits(work, 1, 'post-fail');
    assert.equal(twins.push(work, ['<url>', 'main']).status, 0);
    sameLogs();
    clear();
  });

  test('a hook that is not executable is ignored, with git\'s hint', () => {
    fs.writeFileSync(path.join(twins.ts, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 1\n', { mode: 0o644 });
    commits(work, 1, 'not-executable');
    const r = twins.push(work, ['<url>', 'main']);
    assert.equal(r.status, 0);
    assert.match(r.stderr, /hook was ignored because it's not set as executable/);
    clear();
  });

  test('core.hooksPath', () => {
    const dir = path.join(root, 'shared-hooks');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'pre-receive'), '#!/bin/sh\necho "shared hook"\nexit 1\n', { mode: 0o755 });
    twins.config('core.hooksPath', dir);
    commits(work, 1, 'hooks-path');
    const r = twins.push(work, ['<url>', 'main']);
    assert.match(r.porcelain, /pre-receive hook declined/);
    assert.match(r.stderr, /remote: shared hook/);
    twins.config('--unset', 'core.hooksPath');
  });
});

function catFile(repo: string, oid: string): boolean {
  try {
    git(repo, ['cat-file', '-e', oid]);
    return true;
  } catch {
    return false;
  }
}
