// RevResolver against git rev-parse: the suffixes (^, ^N, ~N, ^{type}, ^{}) and <rev>:<path> on a
// history with a merge and a tag of a tag, and hostile names (a newline, 30,000 carets), which
// must resolve to nothing, promptly, as git finds nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { toHex } from '../src/core/oid.js';
import { GitError } from '../src/core/errors.js';
import { Repository } from '../src/repository/repository.js';
import { GIT_ENV, git, makeRepo, rmrf } from './helpers.js';

let dir: string;
before(() => {
  dir = makeRepo(6);
  git(dir, ['checkout', '-q', '-b', 'side', 'main~3']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', 'side']);
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['merge', '-q', '--no-edit', 'side'], undefined, GIT_ENV);
  git(dir, ['tag', '-a', '-m', 'tag', 'v1', 'main~1'], undefined, GIT_ENV);
  git(dir, ['tag', '-a', '-m', 'tag of a tag', 'v1t', 'v1'], undefined, GIT_ENV);
});
after(() => rmrf(dir));

/** What git rev-parse --verify gives for `spec`: its id, or null when it fails. */
function gitRevParse(spec: string): string | null {
  const r = spawnSync('git', ['rev-parse', '--verify', '-q', spec], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** What tsgit resolves `spec` to: an id, null, or a GitError's code (anything else fails the test). */
function ours(repo: Repository, spec: string): string | null {
  try {
    const id = repo.revs().tryResolve(spec);
    return id && toHex(id);
  } catch (e) {
    assert.ok(e instanceof GitError, `${JSON.stringify(spec)}: ${e instanceof Error ? e.stack : String(e)}`);
    return null;
  }
}

test('suffixes and paths resolve as git rev-parse resolves them', () => {
  const repo = Repository.discover(dir);
  try {
    for (const spec of ['HEAD', '@', '@^', 'HEAD^2', 'HEAD^0', 'HEAD^^2', 'HEAD^2~1', 'main~3', 'main~', 'HEAD~1^2~0', 'v1', 'v1^{}',
      'v1t^{}', 'v1t^{tag}', 'v1t^{tag}^{}', 'v1t^{commit}', 'v1t^{commit}~2', 'v1~1^{tree}', 'HEAD^{commit}^{tree}',
      'HEAD^{object}', 'HEAD^{tree}', 'HEAD^{blob}', 'HEAD^3', 'main~100', 'HEAD:run.sh', 'HEAD~2:dir1/sub', 'v1t:run.sh',
      'HEAD^{tree}^{tree}', 'side^{}^', 'v1^{commit^{}', 'HEAD^{nope}', '^', '~', '^{}', 'HEAD^{', 'HEAD~x']) {
      assert.equal(ours(repo, spec), gitRevParse(spec), spec);
    }
  } finally {
    repo.close();
  }
});

test('hostile names resolve to nothing, promptly, never with a TypeError', () => {
  // Found by fuzzing: the suffixes were split off with a regular expression whose '.' stopped at
  // a newline (a TypeError on its null match), and whose lazy base backtracked quadratically; so
  // would a regular expression for `<ref>@{<date>}` over many `@{`, and a colon in braces is no path.
  const repo = Repository.discover(dir);
  try {
    for (const spec of ['HEAD\n', 'HEAD\n^{tree}', 'ma\rin~1', 'HEAD^{o\nject}', 'v1\n:run.sh']) {
      assert.equal(ours(repo, spec), null, JSON.stringify(spec));
      assert.equal(gitRevParse(spec), null, JSON.stringify(spec));
    }
    for (const spec of ['^'.repeat(30000) + 'x', `HEAD${'~'.repeat(30000)}{`, `HEAD${'^{'.repeat(30000)}`, `${'@{'.repeat(30000)}x`,
      `${'x@{'.repeat(30000)}}`, `HEAD@{${'{'.repeat(30000)}:`]) {
      const started = Date.now();
      assert.equal(ours(repo, spec), null);
      assert.ok(Date.now() - started < 500, `${spec.slice(0, 8)}...: ${Date.now() - started} ms`);
    }
  } finally {
    repo.close();
  }
});
