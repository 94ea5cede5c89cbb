// push --force-if-includes (and push.useForceIfIncludes), against git: a lease taken from the
// remote-tracking ref holds only if that ref's value was integrated here, by the local branch's
// reflog since the remote-tracking ref last changed; otherwise "remote ref updated since checkout"
// and git's hint. It does nothing without --force-with-lease or with an explicit expectation, and
// --force overrides it. Each case runs on a copy of one fixture with tsgit and with git.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf, TSGIT, tmpDir } from './helpers.js';

describe('push --force-if-includes', () => {
  let work: string;
  let fixture: string;
  let n = 0;
  before(() => {
    work = tmpDir();
    // remote.git has "one" then "b1" (pushed from b); a fetched b1, then amended "one" without it.
    fixture = path.join(work, 'fixture');
    const remote = path.join(fixture, 'remote.git');
    git(work, ['init', '-q', '--bare', '-b', 'main', remote]);
    const a = path.join(fixture, 'a'), b = path.join(fixture, 'b');
    git(fixture, ['clone', '-q', remote, a]);
    git(a, ['commit', '-q', '--allow-empty', '-m', 'one']);
    git(a, ['push', '-q', 'origin', 'main']);
    git(fixture, ['clone', '-q', remote, b]);
    git(b, ['commit', '-q', '--allow-empty', '-m', 'b1']);
    git(b, ['push', '-q', 'origin', 'main']);
    git(a, ['fetch', '-q']);
    git(a, ['commit', '-q', '--allow-empty', '--amend', '-m', 'one amended']);
  });
  after(() => rmrf(work));

  /** `prepare` runs in each copy's clone a before the push; both tools must end alike. */
  const compare = (args: string[], prepare: (a: string) => void = () => {}): { status: number | null; stderr: string } => {
    const runs = (['tsgit', 'git'] as const).map((tool) => {
      const copy = path.join(work, `${n}-${tool}`);
      fs.cpSync(fixture, copy, { recursive: true });
      const a = path.join(copy, 'a');
      // The copy's remote is the copy's own remote.git.
      git(a, ['remote', 'set-url', 'origin', path.join(copy, 'remote.git')]);
      prepare(a);
      const cmd = tool === 'tsgit' ? [process.execPath, TSGIT] : ['git'];
      const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'push', ...args], { cwd: a, env: GIT_ENV, encoding: 'utf8' });
      const remoteRefs = git(path.join(copy, 'remote.git'), ['for-each-ref']);
      return { status: r.status, stdout: r.stdout.replaceAll(copy, '<copy>'), stderr: r.stderr.replaceAll(copy, '<copy>'), remoteRefs };
    });
    n++;
    const [ours, theirs] = runs as [typeof runs[0], typeof runs[0]];
    assert.equal(ours.status, theirs.status, ours.stderr);
    assert.equal(ours.stdout, theirs.stdout);
    assert.equal(ours.stderr, theirs.stderr);
    assert.equal(ours.remoteRefs, theirs.remoteRefs);
    return theirs;
  };

  it('refuses a forced update over what was fetched but never integrated', () => {
    const r = compare(['--force-with-lease', '--force-if-includes', 'origin', 'main']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\(remote ref updated since checkout\)/);
    compare(['--porcelain', '--force-with-lease', '--force-if-includes', 'origin', 'main']);
    compare(['--force-with-lease', 'origin', 'main'], (a) => git(a, ['config', 'push.useForceIfIncludes', 'true']));
  });

  it('lets it through once integrated, even when rewritten again', () => {
    const integrated = (a: string): void => {
      git(a, ['reset', '-q', '--hard', 'origin/main']);
      git(a, ['commit', '-q', '--allow-empty', '-m', 'on top']);
      git(a, ['commit', '-q', '--allow-empty', '--amend', '-m', 'on top, amended']);
    };
    assert.equal(compare(['--force-with-lease', '--force-if-includes', 'origin', 'main'], integrated).status, 0);
    // Back to the commit b1 was made on: b1 itself was never a value of main here.
    assert.equal(compare(['--force-with-lease', '--force-if-includes', 'origin', 'main'], (a) => git(a, ['reset', '-q', '--hard', 'origin/main~1'])).status, 1);
  });

  it('does nothing without a lease from the remote-tracking ref; --force overrides it', () => {
    assert.equal(compare(['--force-if-includes', 'origin', 'main']).status, 1);
    const theirs = git(path.join(fixture, 'remote.git'), ['rev-parse', 'main']).trim();
    assert.equal(compare([`--force-with-lease=main:${theirs}`, '--force-if-includes', 'origin', 'main']).status, 0);
    assert.equal(compare(['--force', '--force-with-lease', '--force-if-includes', 'origin', 'main']).status, 0);
    assert.equal(compare(['--no-force-if-includes', '--force-with-lease', 'origin', 'main'], (a) => git(a, ['config', 'push.useForceIfIncludes', 'true'])).status, 0);
  });
});
