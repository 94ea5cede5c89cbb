// The .gitmodules checks a received pack gets (config/gitmodules.ts and object/gitmodules.ts, run by
// index-pack --strict for every blob a tree names .gitmodules): each blob below sits in a tree as
// .gitmodules, `git fsck` says which message ids it raises, and checkGitmodulesBlob must raise the
// same at the same severity. Then index-pack itself: a .gitmodules that is a tree, or refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { checkGitmodulesBlob } from '../src/config/gitmodules.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { indexPack } from '../src/packing/index-pack/index.js';
import { git, gitBuf, GIT_ENV, rmrf, tmpDir } from './helpers.js';

const CASES: { label: string; text: string; expect: string[] }[] = [
  { label: 'a good one', text: '[submodule "lib"]\n\tpath = lib\n\turl = https://example.com/lib.git\n', expect: [] },
  { label: 'url starting with -', text: '[submodule "x"]\n\tpath = x\n\turl = -upload-pack=evil\n', expect: ['error:gitmodulesUrl'] },
  { label: 'relative url with an encoded newline', text: '[submodule "x"]\n\tpath = x\n\turl = ./x%0aprotocol=evil\n', expect: ['error:gitmodulesUrl'] },
  { label: 'relative url escaping its host', text: '[submodule "x"]\n\tpath = x\n\turl = ../../:example.com/x\n', expect: ['error:gitmodulesUrl'] },
  { label: 'http url with an encoded newline', text: '[submodule "x"]\n\tpath = x\n\turl = https://example.com/%0a/x\n', expect: ['error:gitmodulesUrl'] },
  { label: 'path starting with -', text: '[submodule "x"]\n\tpath = --x\n\turl = ./x\n', expect: ['error:gitmodulesPath'] },
  // Reported once per variable of the submodule, as git does.
  { label: 'name climbing out', text: '[submodule "../../hooks"]\n\tpath = x\n\turl = ./x\n', expect: ['error:gitmodulesName', 'error:gitmodulesName'] },
  { label: 'name with .. inside', text: '[submodule "a/../b"]\n\turl = ./x\n', expect: ['error:gitmodulesName'] },
  { label: 'update = !command', text: '[submodule "x"]\n\tpath = x\n\turl = ./x\n\tupdate = !rm -rf /\n', expect: ['error:gitmodulesUpdate'] },
  { label: 'update = rebase', text: '[submodule "x"]\n\tpath = x\n\turl = ./x\n\tupdate = rebase\n', expect: [] },
  { label: 'not config syntax', text: '[submodule "x"\n\tpath = x\n', expect: ['warning:gitmodulesParse'] },
];

test('.gitmodules blobs: the same message ids and severities as git fsck', () => {
  const dir = tmpDir();
  try {
    git(dir, ['init', '-q', '--bare', '.']);
    const mismatches: string[] = [];
    for (const c of CASES) {
      const blob = git(dir, ['hash-object', '-w', '--stdin'], c.text).trim();
      const tree = git(dir, ['hash-object', '-t', 'tree', '-w', '--stdin'],
        Buffer.concat([Buffer.from('100644 .gitmodules\0'), Buffer.from(blob, 'hex')])).trim();
      const { stderr } = spawnSync('git', ['fsck', '--full', '--no-dangling', '--no-reflogs', tree], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
      const theirs = [...stderr.matchAll(new RegExp(`^(error|warning) in blob ${blob}: (\\w+):`, 'gm'))].map((m) => `${m[1]}:${m[2]}`).sort();
      const mine = checkGitmodulesBlob(Buffer.from(c.text)).map((p) => `${p.severity}:${p.id}`).sort();
      if (mine.join() !== theirs.join()) mismatches.push(`${c.label}: tsgit [${mine}] git [${theirs}]`);
      if (mine.join() !== c.expect.join()) mismatches.push(`${c.label}: expected [${c.expect}], got [${mine}]`);
      git(dir, ['prune', '--expire=now']);
    }
    assert.deepEqual(mismatches, []);
  } finally {
    rmrf(dir);
  }
});

test('index-pack --strict refuses a .gitmodules that is a tree, or bad, and takes a good one', async () => {
  const dir = tmpDir();
  try {
    git(dir, ['init', '-q', '--bare', '.']);
    const inner = git(dir, ['mktree'], '').trim();
    const bad = git(dir, ['hash-object', '-w', '--stdin'], '[submodule "x"]\n\tpath = x\n\turl = -x\n').trim();
    const good = git(dir, ['hash-object', '-w', '--stdin'], '[submodule "x"]\n\tpath = x\n\turl = ./x\n').trim();
    const entry = (mode: string, oid: string) => Buffer.concat([Buffer.from(`${mode} .gitmodules\0`), Buffer.from(oid, 'hex')]);
    const trees = {
      tree: git(dir, ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], entry('40000', inner)).trim(),
      bad: git(dir, ['hash-object', '-t', 'tree', '-w', '--stdin'], entry('100644', bad)).trim(),
      good: git(dir, ['hash-object', '-t', 'tree', '-w', '--stdin'], entry('100644', good)).trim(),
    };
    for (const [kind, tree] of Object.entries(trees)) {
      const pack = gitBuf(dir, ['pack-objects', '--stdout', '-q'], `${tree}\n${kind === 'tree' ? inner : kind === 'bad' ? bad : good}\n`);
      const target = tmpDir();
      git(target, ['init', '-q', '--bare', '.']);
      const run = indexPack(new ObjectDatabase(path.join(target, 'objects')), (async function* () { yield pack; })(), {
        strict: { strict: true }, gitmodules: checkGitmodulesBlob,
      });
      if (kind === 'good') await run;
      else await assert.rejects(run, kind === 'tree' ? /gitmodulesBlob: non-blob found at \.gitmodules/ : /gitmodulesUrl/);
      rmrf(target);
    }
  } finally {
    rmrf(dir);
  }
});
