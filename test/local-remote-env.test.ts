// A local remote's server (upload-pack for a fetch, receive-pack for a push) reads its own
// repository with its own configuration: git removes the repository-local variables (local_repo_env:
// GIT_CONFIG_PARAMETERS from `-c`, GIT_OBJECT_DIRECTORY, GIT_DIR, ...) from the environment of the
// service it starts (connect.c), and tsgit's upload-pack, which serves a small local repository in
// the client's own process, reads it as git's child would. git 2.39 is the oracle for each case.
// Over protocol v0 an object the server did not advertise is not even asked for unless the server
// allows it, as git's fetch-pack decides.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { git, GIT_ENV, rmrf, tmpDir, tsgit } from './helpers.js';
import { spawnSync } from 'node:child_process';

let dir: string;
let source: string;
/** A commit of the source that no ref reaches (main was reset past it). */
let hidden: string;

before(() => {
  dir = fs.realpathSync(tmpDir('tsgit-local-env-'));
  source = path.join(dir, 'src');
  git(dir, ['init', '-q', '-b', 'main', source]);
  git(source, ['commit', '-q', '--allow-empty', '-m', 'one']);
  git(source, ['commit', '-q', '--allow-empty', '-m', 'two']);
  hidden = git(source, ['rev-parse', 'HEAD']).trim();
  git(source, ['reset', '-q', '--hard', 'HEAD~1']);
  git(source, ['commit', '-q', '--allow-empty', '-m', 'three']);
});
after(() => rmrf(dir));

/** Runs the same command line with git and with tsgit, each in a fresh empty repository. */
function both(name: string, args: (repo: string) => string[], env: (repo: string) => NodeJS.ProcessEnv = () => GIT_ENV):
  { tool: string; repo: string; status: number | null; stderr: string }[] {
  return (['git', 'tsgit'] as const).map((tool) => {
    const repo = path.join(dir, `${name}-${tool}`);
    git(dir, ['init', '-q', repo]);
    const r = tool === 'git'
      ? spawnSync('git', args(repo), { cwd: repo, env: env(repo) })
      : tsgit(repo, args(repo), undefined, env(repo));
    return { tool, repo, status: r.status, stderr: r.stderr.toString() };
  });
}

const has = (repo: string, id: string) => spawnSync('git', ['cat-file', '-e', id], { cwd: repo, env: GIT_ENV }).status === 0;

test("-c on the client's command line does not reach a local remote's upload-pack, as in git", () => {
  const fetch = ['-c', 'protocol.version=0', '-c', 'uploadpack.allowAnySHA1InWant=true', 'fetch', '-q', `file://${source}`, hidden];
  const refused = both('dash-c', () => fetch);
  for (const r of refused) {
    assert.notEqual(r.status, 0, `${r.tool} fetched an unadvertised object: ${r.stderr}`);
    assert.ok(!has(r.repo, hidden), r.tool);
  }
  // git's fetch-pack refuses it before asking (filter_refs), with an error, not a fatal one.
  assert.deepEqual([refused[1]!.status, refused[1]!.stderr], [refused[0]!.status, refused[0]!.stderr]);
  // The remote's own configuration does reach it.
  git(source, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
  try {
    for (const r of both('own-config', () => fetch)) {
      assert.equal(r.status, 0, `${r.tool}: ${r.stderr}`);
      assert.ok(has(r.repo, hidden), r.tool);
    }
  } finally {
    git(source, ['config', '--unset', 'uploadpack.allowAnySHA1InWant']);
  }
});

test("the client's GIT_OBJECT_DIRECTORY does not redirect a local remote's upload-pack, as in git", () => {
  const main = git(source, ['rev-parse', 'main']).trim();
  const results = both('objects', () => ['fetch', '-q', `file://${source}`, 'main'],
    (repo) => ({ ...GIT_ENV, GIT_OBJECT_DIRECTORY: path.join(repo, '.git', 'objects') }));
  for (const r of results) {
    assert.equal(r.status, 0, `${r.tool}: ${r.stderr}`);
    assert.ok(has(r.repo, main), r.tool);
    assert.equal(fs.readFileSync(path.join(r.repo, '.git', 'FETCH_HEAD'), 'utf8').split('\t')[0], main, r.tool);
  }
});

test("a local push's receive-pack hooks see no -c settings from the client's command line, as in git", () => {
  const seen: Record<string, string> = {};
  for (const tool of ['git', 'tsgit'] as const) {
    const bare = path.join(dir, `push-${tool}.git`);
    git(dir, ['init', '-q', '--bare', bare]);
    const record = path.join(dir, `push-${tool}.env`);
    fs.writeFileSync(path.join(bare, 'hooks', 'pre-receive'),
      `#!/bin/sh\ncat >/dev/null\nenv | grep -E '^GIT_CONFIG_(PARAMETERS|COUNT)=' | sort > "${record}"\nexit 0\n`, { mode: 0o755 });
    const args = ['-c', 'receive.denyDeletes=true', 'push', '-q', bare, 'main'];
    const r = tool === 'git' ? spawnSync('git', args, { cwd: source, env: GIT_ENV }) : tsgit(source, args);
    assert.equal(r.status, 0, `${tool}: ${r.stderr}`);
    seen[tool] = fs.readFileSync(record, 'utf8');
  }
  assert.equal(seen.tsgit, seen.git);
  assert.doesNotMatch(seen.git!, /receive\.denyDeletes/);
});
