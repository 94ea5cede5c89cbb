// Short object names where they collide, against git: 5,300 blobs (5,000 packed, 300 loose) share
// many 4- and some 5-digit prefixes, so resolving a short name meets ambiguity and abbreviations
// must grow past their minimum, both found by the object database's prefix search (each pack's
// .idx and the loose fan-out directory), loose objects against packed ones included.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { toHex } from '../src/core/oid.js';
import { GitError } from '../src/core/errors.js';
import { Repository } from '../src/repository/repository.js';
import { git, GIT_ENV, rmrf, tmpDir, tsgit } from './helpers.js';

let dir: string;
/** Every object's id, and the loose ones'. */
let all: string[], loose: Set<string>;

function writeFiles(sub: string, from: number, to: number): void {
  fs.mkdirSync(path.join(dir, sub));
  for (let i = from; i < to; i++) fs.writeFileSync(path.join(dir, sub, `f${i}`), `content ${i}\n`);
}

before(() => {
  dir = tmpDir('tsgit-abbrev-');
  git(dir, ['init', '-q', '-b', 'main', '.']);
  writeFiles('packed', 0, 5000);
  git(dir, ['add', 'packed']);
  git(dir, ['commit', '-q', '-m', 'packed']);
  git(dir, ['repack', '-adq']);
  writeFiles('loose', 5000, 5300);
  git(dir, ['add', 'loose']);
  git(dir, ['commit', '-q', '-m', 'loose']);
  all = git(dir, ['rev-list', '--objects', '--all']).split('\n').filter(Boolean).map((l) => l.slice(0, 40));
  const objects = path.join(dir, '.git', 'objects');
  loose = new Set(fs.readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => fs.readdirSync(path.join(objects, d)).map((f) => d + f)));
});
after(() => rmrf(dir));

/** The prefixes of `digits` digits that more than one object shares. */
function shared(digits: number): string[] {
  const seen = new Map<string, number>();
  for (const id of all) seen.set(id.slice(0, digits), (seen.get(id.slice(0, digits)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([p]) => p);
}

test('the fixture has what the tests need: ambiguous prefixes, some of them a loose and a packed object', () => {
  assert.ok(loose.size >= 300 && loose.size < all.length, `${loose.size} loose of ${all.length}`);
  const ambiguous = shared(4);
  assert.ok(ambiguous.length > 50, `${ambiguous.length} ambiguous 4-digit prefixes`);
  assert.ok(shared(5).length > 0, 'an ambiguous 5-digit prefix');
  assert.ok(ambiguous.some((p) => all.some((id) => id.startsWith(p) && loose.has(id)) && all.some((id) => id.startsWith(p) && !loose.has(id))));
});

test('every short name resolves as git cat-file --batch-check resolves it: the object, missing, or ambiguous', () => {
  // Every object's first 4 digits, the shared 5-digit prefixes, some 7-digit names, and 4-digit
  // names spread over the whole range, most of them naming nothing.
  const spread = Array.from({ length: 400 }, (_, i) => (i * 163).toString(16).padStart(4, '0'));
  const names = [...new Set([...all.map((id) => id.slice(0, 4)), ...shared(5), ...all.slice(0, 50).map((id) => id.slice(0, 7)), ...spread])];
  const expected = git(dir, ['cat-file', '--batch-check'], names.join('\n') + '\n').split('\n');
  const repo = Repository.discover(dir);
  try {
    names.forEach((name, i) => {
      let ours: string;
      try {
        const id = repo.revs().tryResolve(name);
        ours = id ? toHex(id) : `${name} missing`;
      } catch (e) {
        assert.ok(e instanceof GitError && e.code === 'ambiguous', String(e));
        assert.equal(e.message, `short object ID ${name} is ambiguous`);
        ours = `${name} ambiguous`;
      }
      assert.equal(ours, expected[i]!.replace(/ (blob|tree|commit|tag) \d+$/, ''), name);
    });
  } finally {
    repo.close();
  }
  // And through the command, line for line.
  const ours = tsgit(dir, ['cat-file', '--batch-check'], names.join('\n') + '\n');
  assert.equal(ours.status, 0, ours.stderr.toString());
  assert.equal(ours.stdout.toString(), expected.join('\n'));
});

test('rev-parse of an ambiguous short name fails with git\'s error; of a unique one, prints the id', () => {
  const ambiguous = shared(4);
  const withLoose = ambiguous.find((p) => all.some((id) => id.startsWith(p) && loose.has(id)))!;
  for (const name of [withLoose, ambiguous[0]!, shared(5)[0]!]) {
    const theirs = spawnSync('git', ['rev-parse', name], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
    const ours = tsgit(dir, ['rev-parse', name]);
    assert.equal(ours.status, theirs.status, name);
    // git goes on to list the candidates and to say the argument is no revision.
    assert.match(theirs.stderr, new RegExp(`^error: short object ID ${name} is ambiguous\n`));
    assert.equal(ours.stderr.toString(), `fatal: short object ID ${name} is ambiguous\n`);
  }
  const unique = all.find((id) => !ambiguous.includes(id.slice(0, 4)))!.slice(0, 4);
  assert.equal(tsgit(dir, ['rev-parse', unique]).stdout.toString(), git(dir, ['rev-parse', unique]));
});

test('ls-tree --abbrev gives git\'s unique abbreviations: at 4, 5 and 7 digits, and core.abbrev\'s', () => {
  for (const args of [['--abbrev=4'], ['--abbrev=5'], ['--abbrev=7'], ['--abbrev']]) {
    const theirs = git(dir, ['ls-tree', '-r', ...args, 'HEAD']);
    const ours = tsgit(dir, ['ls-tree', '-r', ...args, 'HEAD']);
    assert.equal(ours.status, 0, ours.stderr.toString());
    assert.equal(ours.stdout.toString(), theirs, args.join(' '));
  }
  const lengths = new Set(git(dir, ['ls-tree', '-r', '--abbrev=4', 'HEAD']).split('\n').filter(Boolean).map((l) => l.split(/\s/)[2]!.length));
  assert.ok(lengths.has(5) && lengths.has(6), `abbreviations lengthened: ${[...lengths]}`);
  git(dir, ['config', 'core.abbrev', '4']);
  try {
    assert.equal(tsgit(dir, ['ls-tree', '-r', '--abbrev', 'HEAD']).stdout.toString(), git(dir, ['ls-tree', '-r', '--abbrev', 'HEAD']));
  } finally {
    git(dir, ['config', '--unset', 'core.abbrev']);
  }
});
