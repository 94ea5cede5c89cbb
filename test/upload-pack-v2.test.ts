// Protocol v2 commands and fetch arguments, byte for byte against git's own upload-pack where
// the answer is deterministic (ls-refs, object-info, acknowledgments), and by what git's client
// ends up with where it is a pack (filters tree:<depth> and blob:limit, deepen-relative,
// include-tag), plus want-ref, sideband-all and wait-for-done, which git keeps behind config.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, makeRepo, pkt, rmrf, tmpDir, TSGIT } from './helpers.js';

let repo: string;
let work: string;

function v2Request(command: string, args: string[]): Buffer {
  return Buffer.from(pkt(`command=${command}\n`) + pkt('object-format=sha1\n') + '0001' + args.map(a => pkt(`${a}\n`)).join('') + '0000');
}

/** One stateless v2 request to tsgit's and to git's upload-pack; returns both responses. */
function both(request: Buffer): { ours: Buffer; theirs: Buffer } {
  const env = { ...GIT_ENV, GIT_PROTOCOL: 'version=2' };
  const ours = spawnSync(process.execPath, [TSGIT, 'upload-pack', '--stateless-rpc', repo], { input: request, env });
  assert.equal(ours.status, 0, ours.stderr.toString());
  const theirs = spawnSync('git', ['upload-pack', '--stateless-rpc', repo], { input: request, env });
  assert.equal(theirs.status, 0, theirs.stderr.toString());
  return { ours: ours.stdout, theirs: theirs.stdout };
}

before(() => {
  work = tmpDir('tsgit-upload-pack-v2-');
  repo = makeRepo(10, { bare: true });
  git(repo, ['tag', '-a', '-m', 'release', 'v1', 'main~3']);
  git(repo, ['tag', '-a', '-m', 'tag of a tag', 'v1-again', 'v1']);
  git(repo, ['tag', 'light', 'main~6']);
  git(repo, ['branch', 'maint', 'main~2']);
  git(repo, ['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/heads/main']);
  git(repo, ['update-ref', 'refs/remotes/origin/main', 'main']);
  git(repo, ['pack-refs', '--all']);
  git(repo, ['config', 'uploadpack.allowFilter', 'true']);
});

after(() => {
  rmrf(repo);
  rmrf(work);
});

test('ls-refs answers as git does, with every combination of arguments', () => {
  for (const args of [[], ['peel'], ['symrefs'], ['peel', 'symrefs'], ['ref-prefix refs/tags/'], ['ref-prefix HEAD', 'ref-prefix refs/heads/m', 'symrefs'],
    ['unborn', 'symrefs', 'peel', 'ref-prefix refs/remotes/']]) {
    const { ours, theirs } = both(v2Request('ls-refs', args));
    assert.equal(ours.toString(), theirs.toString(), `ls-refs ${args.join(', ')}`);
  }
});

test('uploadpack.hideRefs: ls-refs leaves hidden refs out as git does, and a hidden want-ref is an unknown ref', () => {
  // Patterns of both keys in one ordered list: the last match decides, `^` names the full ref.
  git(repo, ['config', 'transfer.hideRefs', 'refs/remotes']);
  git(repo, ['config', '--add', 'uploadpack.hideRefs', '!refs/remotes/origin/HEAD']);
  git(repo, ['config', '--add', 'uploadpack.hideRefs', '^refs/tags/v1']);
  git(repo, ['config', '--add', 'uploadpack.hideRefs', 'refs/heads/main/']);
  git(repo, ['config', 'uploadpack.allowRefInWant', 'true']);
  try {
    for (const args of [['symrefs', 'peel'], ['ref-prefix refs/tags/v1', 'ref-prefix refs/remotes/', 'symrefs'], ['ref-prefix HEAD', 'symrefs']]) {
      const { ours, theirs } = both(v2Request('ls-refs', args));
      assert.equal(ours.toString(), theirs.toString(), `ls-refs ${args.join(', ')}`);
      assert.doesNotMatch(ours.toString(), / refs\/(tags\/v1|heads\/main|remotes\/origin\/main)\n/);
    }
    const env = { ...GIT_ENV, GIT_PROTOCOL: 'version=2' };
    const request = v2Request('fetch', ['want-ref refs/heads/main', 'no-progress', 'done']);
    const ours = spawnSync(process.execPath, [TSGIT, 'upload-pack', '--stateless-rpc', repo], { input: request, env });
    const theirs = spawnSync('git', ['upload-pack', '--stateless-rpc', repo], { input: request, env });
    assert.match(theirs.stdout.toString(), /ERR unknown ref refs\/heads\/main/);
    assert.match(ours.stdout.toString(), /ERR unknown ref refs\/heads\/main/);
  } finally {
    for (const key of ['transfer.hideRefs', 'uploadpack.hideRefs', 'uploadpack.allowRefInWant']) git(repo, ['config', '--unset-all', key]);
  }
});

test('ls-refs shows an unborn HEAD only when asked', () => {
  const empty = fs.mkdtempSync(path.join(work, 'empty-'));
  git(empty, ['init', '-q', '--bare', '-b', 'trunk', '.']);
  const saved = repo;
  repo = empty;
  try {
    for (const args of [['symrefs'], ['unborn', 'symrefs'], ['unborn']]) {
      const { ours, theirs } = both(v2Request('ls-refs', args));
      assert.equal(ours.toString(), theirs.toString(), `ls-refs ${args.join(', ')}`);
    }
  } finally {
    repo = saved;
  }
});

test('object-info gives the sizes git gives', () => {
  const ids = git(repo, ['rev-list', '--objects', '-n', '3', 'main']).split('\n').filter(Boolean).map(l => l.slice(0, 40));
  const { ours, theirs } = both(v2Request('object-info', ['size', ...ids.map(i => `oid ${i}`), `oid ${'1'.repeat(40)}`]));
  assert.equal(ours.toString(), theirs.toString());
});

test('acknowledgments of a negotiation round match git\'s', () => {
  const head = git(repo, ['rev-parse', 'main']).trim();
  const common = git(repo, ['rev-parse', 'main~4']).trim();
  for (const extra of [[], ['wait-for-done']]) {
    const { ours, theirs } = both(v2Request('fetch', [`want ${head}`, ...extra, `have ${'2'.repeat(40)}`, `have ${common}`]));
    assert.equal(ours.toString('latin1').split('0001')[0], theirs.toString('latin1').split('0001')[0]);
  }
});

/** Clones with git-core through tsgit (stdio) and through git itself; returns both object lists. */
function cloneBoth(args: string[]): { ours: string; theirs: string; oursDir: string } {
  const oursDir = fs.mkdtempSync(path.join(work, 'ours-'));
  const theirsDir = fs.mkdtempSync(path.join(work, 'theirs-'));
  rmrf(oursDir);
  rmrf(theirsDir);
  git(work, ['-c', 'protocol.version=2', 'clone', '-q', '--bare', ...args, `--upload-pack=${process.execPath} ${TSGIT} upload-pack`, `file://${repo}`, oursDir]);
  git(work, ['-c', 'protocol.version=2', 'clone', '-q', '--bare', ...args, `file://${repo}`, theirsDir]);
  const list = (d: string) => git(d, ['rev-list', '--objects', '--all', '--missing=print']).split('\n').sort().join('\n');
  return { ours: list(oursDir), theirs: list(theirsDir), oursDir };
}

test('filters tree:0, tree:1, tree:2 and blob:limit leave out what git leaves out', () => {
  for (const filter of ['tree:0', 'tree:1', 'tree:2', 'blob:limit=40', 'blob:limit=1k', 'combine:tree:2+blob:limit=30']) {
    const { ours, theirs, oursDir } = cloneBoth([`--filter=${filter}`]);
    assert.equal(ours, theirs, filter);
    assert.equal(git(oursDir, ['fsck', '--connectivity-only', '--no-dangling']).trim(), '');
  }
});

/** The ids of the objects in a v2 fetch response's pack (indexed by git), sorted. */
function packObjects(response: Buffer, name: string): string[] {
  const text = response.toString('latin1');
  const parts: Buffer[] = [];
  for (let p = text.indexOf('packfile\n') + 'packfile\n'.length; p + 4 <= response.length;) {
    const len = parseInt(text.slice(p, p + 4), 16);
    if (len < 4) break;
    if (response[p + 4] === 1) parts.push(response.subarray(p + 5, p + len));
    p += len;
  }
  const file = path.join(work, `${name}.pack`);
  fs.writeFileSync(file, Buffer.concat(parts));
  git(work, ['index-pack', file]);
  return git(work, ['show-index'], fs.readFileSync(file.replace(/\.pack$/, '.idx'))).split('\n').filter(Boolean).map(l => l.split(' ')[1]!).sort();
}

test('tree:<depth> below a tree the client named through a tag counts as git counts it', () => {
  // git's filter never sees a tree the client named (USER_GIVEN), so that tree's entries are at
  // depth 0, where a commit's root tree is.
  const dir = makeRepo(2, { bare: true });
  try {
    const tree = git(dir, ['rev-parse', 'main^{tree}']).trim();
    git(dir, ['tag', '-a', '-m', 'a tree', 'tree-tag', tree]);
    git(dir, ['-c', 'advice.nestedTag=false', 'tag', '-a', '-m', 'a tag of it', 'tag-tag', 'tree-tag']);
    git(dir, ['config', 'uploadpack.allowFilter', 'true']);
    const env = { ...GIT_ENV, GIT_PROTOCOL: 'version=2' };
    for (const tag of ['tree-tag', 'tag-tag']) {
      const id = git(dir, ['rev-parse', tag]).trim();
      for (const filter of ['tree:0', 'tree:1', 'tree:2', 'blob:none']) {
        const request = v2Request('fetch', [`want ${id}`, `filter ${filter}`, 'no-progress', 'done']);
        const ours = spawnSync(process.execPath, [TSGIT, 'upload-pack', '--stateless-rpc', dir], { input: request, env });
        const theirs = spawnSync('git', ['upload-pack', '--stateless-rpc', dir], { input: request, env });
        const name = `${tag}-${filter.replace(':', '-')}`;
        assert.deepEqual(packObjects(ours.stdout, `${name}-ours`), packObjects(theirs.stdout, `${name}-theirs`), `${tag} ${filter}`);
      }
    }
  } finally {
    rmrf(dir);
  }
});

test('deepen-relative and include-tag give what git gives', () => {
  const { ours, theirs, oursDir } = cloneBoth(['--depth=2']);
  assert.equal(ours, theirs);
  git(oursDir, ['-c', 'protocol.version=2', 'fetch', '-q', '--deepen=3']);
  assert.equal(git(oursDir, ['rev-list', '--count', 'main']).trim(), '5');
  const tags = cloneBoth(['--single-branch', '--branch=main']);
  assert.equal(tags.ours, tags.theirs);
  assert.ok(tags.ours.includes(git(repo, ['rev-parse', 'v1-again']).trim()), 'the tag of a tag came with include-tag');
});

test('want-ref, sideband-all and wait-for-done once configured', () => {
  git(repo, ['config', 'uploadpack.allowRefInWant', 'true']);
  git(repo, ['config', 'uploadpack.allowSidebandAll', 'true']);
  try {
    const head = git(repo, ['rev-parse', 'maint']).trim();
    const env = { ...GIT_ENV, GIT_PROTOCOL: 'version=2' };
    const run = (args: string[]) => spawnSync(process.execPath, [TSGIT, 'upload-pack', '--stateless-rpc', repo], { input: v2Request('fetch', args), env }).stdout.toString('latin1');
    const wanted = run(['want-ref refs/heads/maint', 'no-progress', 'done']);
    assert.match(wanted, new RegExp(`^0010wanted-refs\\n[0-9a-f]{4}${head} refs/heads/maint\\n0001000dpackfile\\n`));
    const all = run(['want-ref refs/heads/maint', 'sideband-all', 'no-progress', 'done']);
    assert.match(all, new RegExp(`^0011\\x01wanted-refs\\n[0-9a-f]{4}\\x01${head} refs/heads/maint\\n0001000e\\x01packfile\\n`));
    // wait-for-done: haves are acknowledged, but no "ready" even when the server could stop.
    const waited = run([`want ${head}`, `have ${head}`, 'wait-for-done']);
    assert.equal(waited, `0014acknowledgments\n0031ACK ${head}\n0000`);
    const unknown = run(['want-ref refs/heads/nope', 'done']);
    assert.match(unknown, /ERR unknown ref refs\/heads\/nope/);
  } finally {
    git(repo, ['config', '--unset', 'uploadpack.allowRefInWant']);
    git(repo, ['config', '--unset', 'uploadpack.allowSidebandAll']);
  }
});

test('commands on one connection do not share state: a second fetch gets the whole pack again', () => {
  const head = git(repo, ['rev-parse', 'main']).trim();
  const fetch = v2Request('fetch', [`want ${head}`, 'no-progress', 'done']);
  const r = spawnSync(process.execPath, [TSGIT, 'upload-pack', repo], {
    input: Buffer.concat([fetch, fetch, Buffer.from('0000')]), env: { ...GIT_ENV, GIT_PROTOCOL: 'version=2' },
  });
  assert.equal(r.status, 0, r.stderr.toString());
  const text = r.stdout.toString('latin1');
  const counts = [...text.matchAll(/\x01PACK\0\0\0\x02([\s\S]{4})/g)].map(m => Buffer.from(m[1]!, 'latin1').readUInt32BE(0));
  const expected = git(repo, ['rev-list', '--objects', 'main']).split('\n').filter(Boolean).length;
  assert.deepEqual(counts, [expected, expected]);
});
