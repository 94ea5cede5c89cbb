// Fetching, without deepening, from a shallow remote that has taken on new shallow roots (git's
// fetch-pack.c update_shallow). A ref whose new history stops at a root this repository lacks, or
// has without its being a boundary here, would need .git/shallow to change: git rejects it with a
// warning ("rejected <ref> because shallow roots are not allowed to be updated"), leaves it and
// FETCH_HEAD alone and exits 0; with --update-shallow it takes the ref and the roots it reaches.
// Checked against git fetch, from a shallow clone and from a complete repository, against
// git-upload-pack and tsgit upload-pack over v0 and v2, for a first fetch and for the same fetch
// again (the rejected ref's objects are here by then, which must not make it acceptable).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TsgitSession } from './cli-batch.js';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';

const SERVERS = [
  { name: 'git-upload-pack', uploadPack: 'git-upload-pack' },
  { name: 'tsgit upload-pack', uploadPack: `${process.execPath} ${TSGIT} upload-pack` },
];

/** A commit in `dir` at `time`, so that dates rise with history as the walks expect. */
function commitAt(dir: string, file: string, text: string, time: number): void {
  fs.writeFileSync(path.join(dir, file), text);
  git(dir, ['add', file]);
  git(dir, ['commit', '-q', '-m', `${file}: ${text}`], undefined, at(time));
}

function at(time: number): NodeJS.ProcessEnv {
  return { ...GIT_ENV, GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
}

/** What a fetch leaves: refs, the boundary as a set (git may write a line twice), FETCH_HEAD. */
function state(dir: string): { refs: string; shallow: string[]; fetchHead: string } {
  const gitDir = path.join(dir, '.git');
  const read = (name: string) => fs.existsSync(path.join(gitDir, name)) ? fs.readFileSync(path.join(gitDir, name), 'latin1') : '';
  return {
    refs: git(dir, ['for-each-ref', '--format=%(objectname) %(refname)']),
    shallow: [...new Set(read('shallow').split('\n').filter(Boolean))].sort(),
    fetchHead: read('FETCH_HEAD'),
  };
}

const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('warning:'));

describe('fetch from a shallow remote with new shallow roots', () => {
  let root = '', full = '', source = '';
  const fetchers: { name: string; dir: string; remote: string }[] = [];

  before(() => {
    root = tmpDir('tsgit-shallow-update-');
    full = makeRepo(8, { at: path.join(root, 'full') });
    source = path.join(root, 'source.git');
    git(root, ['clone', '-q', '--bare', '--no-local', '--depth', '3', `file://${full}`, source]);

    const shallowClone = path.join(root, 'shallow-clone');
    git(root, ['clone', '-q', `file://${source}`, shallowClone]);
    const whole = path.join(root, 'whole');
    git(root, ['clone', '-q', '--no-local', full, whole]);
    git(whole, ['remote', 'add', 'mirror', `file://${source}`]);
    git(whole, ['fetch', '-q', 'mirror']);
    fetchers.push({ name: 'a shallow clone', dir: shallowClone, remote: 'origin' },
      { name: 'a complete repository', dir: whole, remote: 'mirror' });

    // The source moves on: a branch forked below its boundary, fetched with --depth 2 (so its
    // second commit is a root no fetcher has), and main one commit on, with a tag (main's old
    // tip becomes a root too, one every fetcher has and reaches from its refs).
    git(full, ['checkout', '-q', '-b', 'topic', 'main~6']);
    for (const [i, text] of ['a', 'b', 'c'].entries()) commitAt(full, 'topic.txt', text, 1700001000 + i * 60);
    git(full, ['checkout', '-q', 'main']);
    commitAt(full, 'main.txt', 'nine', 1700002000);
    git(full, ['tag', '-a', '-m', 'v9', 'v9'], undefined, at(1700002000));
    git(source, ['fetch', '-q', '--depth', '2', `file://${full}`, 'topic:refs/heads/topic', 'main:refs/heads/main', 'v9:refs/tags/v9']);
  });
  after(() => rmrf(root));

  // tsgit fetch runs through the CLI in one session process (cli-batch.ts), but for each test's
  // first fetch, which a spawned bin/tsgit makes: a process per fetch was most of this file's time.
  let session: TsgitSession;
  before(() => { session = new TsgitSession(); });
  after(() => session.stop());

  for (const mode of [[], ['--update-shallow']]) {
    for (const version of ['0', '2']) {
      test(`${mode.join(' ') || 'by default'}, over protocol v${version}: refs, .git/shallow and FETCH_HEAD as git leaves them`, async () => {
        let spawned = false;
        for (const fetcher of fetchers) {
          const oracle = path.join(root, `git-${fetcher.remote}-${mode.length}-${version}`);
          fs.cpSync(fetcher.dir, oracle, { recursive: true });
          const runGit = () => {
            const r = spawnSync('git', ['-c', `protocol.version=${version}`, 'fetch', ...mode, fetcher.remote], { cwd: oracle, env: GIT_ENV });
            assert.equal(r.status, 0, r.stderr.toString());
            return r.stderr.toString();
          };
          const gitFirst = runGit();
          const expected = state(oracle);
          const gitAgain = runGit();
          const expectedAgain = state(oracle);
          if (mode.length === 0) {
            assert.equal(warnings(gitFirst).length, 1, `${fetcher.name}: git rejects the branch: ${gitFirst}`);
            assert.deepEqual(expected.shallow, state(fetcher.dir).shallow, `${fetcher.name}: git leaves the boundary`);
          } else {
            assert.notDeepEqual(expected.shallow, state(fetcher.dir).shallow, `${fetcher.name}: git takes the new root`);
          }

          for (const { name, uploadPack } of SERVERS) {
            const what = `${fetcher.name}, ${name}`;
            const dir = path.join(root, `tsgit-${fetcher.remote}-${mode.length}-${version}-${name.replace(/ /g, '-')}`);
            fs.cpSync(fetcher.dir, dir, { recursive: true });
            const run = async () => {
              const args = ['-c', `protocol.version=${version}`, 'fetch', ...mode, `--upload-pack=${uploadPack}`, fetcher.remote];
              const r = spawned ? await session.run(dir, args) : tsgit(dir, args);
              spawned = true;
              assert.equal(r.status, 0, `${what}: ${r.stderr}`);
              return r.stderr.toString();
            };
            assert.equal(await run(), gitFirst, what);
            assert.deepEqual(state(dir), expected, what);
            git(dir, ['fsck', '--full', '--no-dangling']);
            assert.deepEqual(warnings(await run()), warnings(gitAgain), `${what}, again`);
            assert.deepEqual(state(dir), expectedAgain, `${what}, again`);
            git(dir, ['fsck', '--full', '--no-dangling']);
          }
        }
      });
    }
  }
});
