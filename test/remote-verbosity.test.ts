// -q and -v of fetch, push and clone against git 2.39 (oracle-copies.ts: output, exit status and
// the copies' files compared). fetch -q says nothing of refs, rejected ones included (the exit
// status tells); -q and -v are not summed but the last one wins, and --no-quiet and
// --no-verbose go back to the default (git's OPT__VERBOSITY).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf, tmpDir, TSGIT } from './helpers.js';
import { clonedTemplate, compareInCopies, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-verbosity-'));
after(() => rmrf(root));

// up.git: main, side and tag v1 at one commit; work, its clone. Then up.git's side and v1 move to
// an unrelated commit, which neither a fetch without + nor one of tags may store over them.
const { template, work } = clonedTemplate(root, { source: [['tag', 'v1']] });
git(work, ['checkout', '-q', '--orphan', 'other']);
git(work, ['commit', '-q', '--allow-empty', '-m', 'other']);
git(work, ['push', '-q', '-f', '../up.git', 'HEAD:refs/heads/side', 'HEAD:refs/tags/v1']);
git(work, ['checkout', '-q', 'main']);
git(work, ['branch', '-q', '-D', 'other']);

function compare(c: CopiesCase): void {
  compareInCopies(template, root, c, 'work');
}

const branches = ['origin', 'refs/heads/*:refs/remotes/origin/*'];

describe('fetch -q', () => {
  it('says nothing of rejected refs, and exits 1, as git does', () => {
    compare({ name: 'branch', steps: [['fetch', '-q', ...branches]] });
    compare({ name: 'tag', steps: [['fetch', '-q', '--tags', 'origin']] });
    compare({ name: 'both, quieter', steps: [['fetch', '-q', '-q', '--tags', ...branches, 'main:refs/heads/new']] });
    compare({ name: 'atomic', steps: [['fetch', '-q', '--atomic', '--tags', 'origin']] });
  });

  it('takes the last of -q and -v, and --no-quiet or --no-verbose as neither, as git does', () => {
    // Each order once, bundled or not, and each negation (all seven forms took 8 s more).
    for (const flags of [['-q', '-v'], ['-vq'], ['-q', '--no-quiet'], ['-v', '--no-verbose']]) {
      compare({ name: flags.join(' '), steps: [['fetch', ...flags, ...branches], ['fetch', ...flags, 'origin', 'main']] });
    }
  });

  it('passes the verbosity on to the fetch of each remote, -v at most twice', () => {
    // The reflog of the forced update names the options each remote's fetch was run with.
    for (const flags of [['-v', '-v', '-v'], ['-v', '-q']]) {
      compare({ name: `--all ${flags.join(' ')}`, prepare: [['remote', 'add', 'other', '../up.git']], steps: [['fetch', '--all', ...flags]] });
    }
  });
});

describe('push -q -v', () => {
  it('takes the last of -q and -v, as git does', () => {
    for (const flags of [['-q', '-v'], ['-v', '-q'], ['-v', '--no-verbose'], ['-q', '--no-quiet']]) {
      compare({ name: `push ${flags.join(' ')}`, steps: [['push', ...flags, 'origin', 'main:refs/heads/new', 'main:refs/heads/side']] });
    }
  });
});

describe('clone -q -v', () => {
  it('takes the last of -q and -v, as git does', () => {
    // git's clone writes its templates, which tsgit does not: only what the command says is compared.
    for (const flags of [['-q', '-v'], ['-v', '-q'], ['-q', '--no-quiet'], ['-q', '--no-verbose']]) {
      const said = [['git'], [process.execPath, TSGIT]].map((cmd, i) => {
        const dir = path.join(root, `clone-${flags.join('')}-${i}`);
        const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'clone', '--no-local', ...flags, path.join(template, 'up.git'), dir], { env: GIT_ENV, encoding: 'utf8' });
        rmrf(dir);
        return { status: r.status, stdout: r.stdout, stderr: r.stderr.replaceAll(dir, '@DIR@') };
      });
      assert.deepEqual(said[1], said[0], flags.join(' '));
    }
  });
});
