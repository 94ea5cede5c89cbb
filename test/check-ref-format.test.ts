import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { checkRefFormat, checkRefPath, isPlainRefName } from '../src/refs/check-ref-format.js';
import { GIT_ENV, seededInt } from './helpers.js';

const HAND_PICKED = [
  'refs/heads/main', 'refs/heads/feature/x', 'refs/tags/v1.0', 'refs/remotes/origin/HEAD', 'HEAD', 'main', 'a/b',
  'refs/heads/../../config', 'refs/heads/..', 'refs/heads/.', 'refs/heads/.hidden', 'refs/heads/a/.b', 'refs/heads/a.',
  'refs/heads/a..b', 'refs/heads/a.b', 'refs/heads/...', 'refs/./heads', '.refs/heads', 'refs/heads/a/.',
  'refs/heads/@{u}', 'refs/heads/a@{', 'refs/heads/@', '@', '@/x', 'x/@', 'refs/heads/a@b', 'refs/heads/@@', 'refs/heads/{@',
  'refs/heads/x.lock', 'refs/heads/x.lock/y', 'refs/heads/.lock', 'refs/heads/lock', 'refs/heads/x.LOCK', 'refs/heads/x.lockx',
  'refs/heads/a.lock.b', 'x.lock',
  'refs//heads', 'refs/heads/', '/refs/heads', '//', '/', '', 'refs/heads//a', 'refs/heads/a//',
  'refs/heads/a b', 'refs/heads/a\tb', 'refs/heads/a~1', 'refs/heads/a^', 'refs/heads/a:b', 'refs/heads/a?', 'refs/heads/a[b',
  'refs/heads/a\\b', 'refs/heads/a*', 'refs/heads/*', 'refs/*/x', 'refs/heads/*/*', 'refs/heads/a*b*', '*', 'refs/*',
  'refs/heads/\x7f', 'refs/heads/\x01', 'refs/heads/\x1f', 'refs/heads/\x1b[31m',
  'refs/heads/ü', 'refs/heads/日本語', 'refs/heads/emoji😀', 'refs/heads/é.lock', 'refs/heads/\u00a0', 'refs/heads/\u200c',
  'refs/heads/a}', 'refs/heads/a{', 'refs/heads/a@', 'refs/heads/-dash', 'refs/heads/a-', 'refs/heads/a_b', 'refs/heads/"q"',
  'refs/heads/a,b', 'refs/heads/a;b', 'refs/heads/a|b', 'refs/heads/a!b', 'refs/heads/a#b', 'refs/heads/a$b', 'refs/heads/a%b',
  'refs/heads/a&b', "refs/heads/a'b", 'refs/heads/a(b)', 'refs/heads/a+b', 'refs/heads/a<b>', 'refs/heads/a=b', 'refs/heads/`',
  'refs.heads', 'refs/heads/a.b.', 'refs/heads/.a.', 'a', '.', '..', 'a.', 'foo.lock/bar', 'foo/bar.lock', 'refs/heads/a/b/c/d/e',
];

function systematic(): string[] {
  const names: string[] = [];
  for (let c = 1; c < 128; c++) {
    const ch = String.fromCharCode(c);
    names.push(`refs/heads/a${ch}b`, `refs/heads/${ch}`, `refs/heads/a${ch}`, `${ch}refs/x`, `refs${ch}`);
  }
  for (const c of ['.', '@', '{', '/', '*', 'lock', '.lock']) {
    for (const d of ['.', '@', '{', '/', '*', 'lock', '.lock', 'x']) names.push(`refs/${c}${d}`, `refs/x${c}${d}`, `${c}${d}`);
  }
  return names;
}

const FLAG_SETS: { flags: string[]; opts: { allowOneLevel?: boolean; refspecPattern?: boolean } }[] = [
  { flags: [], opts: {} },
  { flags: ['--allow-onelevel'], opts: { allowOneLevel: true } },
  { flags: ['--refspec-pattern'], opts: { refspecPattern: true } },
  { flags: ['--allow-onelevel', '--refspec-pattern'], opts: { allowOneLevel: true, refspecPattern: true } },
];

/** git check-ref-format's exit status for each name, from one shell loop (a spawn per name from
 * node costs several times more). */
function gitStatuses(flags: string[], names: string[]): number[] {
  const script = 'while IFS= read -r -d "" n; do git check-ref-format "$@" "$n"; echo $?; done';
  const out = execFileSync('bash', ['-c', script, 'bash', ...flags],
    { env: GIT_ENV, input: names.map((n) => n + '\0').join(''), encoding: 'utf8' });
  return out.trim().split('\n').map(Number);
}

test('checkRefFormat agrees with git check-ref-format on every name and flag set', () => {
  // git reads a leading '-' as an option, so such names cannot be asked about on its command line.
  const allNames = [...new Set([...HAND_PICKED, ...systematic()])].filter((n) => !n.startsWith('-'));
  assert.ok(allNames.length > 700);
  let valid = 0, invalid = 0;
  for (const { flags, opts } of FLAG_SETS) {
    // The flags only matter for one-level names and '*'; the first and last sets cover all names,
    // the others those that can tell the flags apart (git is ~10 ms a call on a busy machine).
    const names = flags.length === 1 ? allNames.filter((n) => n.includes('*') || !n.includes('/')) : allNames;
    const statuses = gitStatuses(flags, names);
    assert.equal(statuses.length, names.length);
    names.forEach((name, i) => {
      const status = statuses[i]!;
      assert.ok(status === 0 || status === 1, `git check-ref-format ${JSON.stringify(name)} exited ${status}`);
      const reason = checkRefFormat(name, opts);
      assert.equal(reason === null, status === 0,
        `${JSON.stringify(name)} ${flags.join(' ')}: git says ${status === 0 ? 'valid' : 'invalid'}, tsgit: ${reason ?? 'valid'}`);
      if (reason === null) valid++; else invalid++;
    });
  }
  // Both verdicts are well represented, so neither a constant "valid" nor "invalid" could pass.
  assert.ok(valid > 300 && invalid > 300, `${valid} valid, ${invalid} invalid`);
});

test('checkRefFormat explains why a name is refused', () => {
  assert.equal(checkRefFormat('refs/heads/main'), null);
  assert.match(checkRefFormat('refs/heads/../../config')!, /'\.\.'/);
  assert.match(checkRefFormat('refs/heads/x.lock')!, /\.lock/);
  assert.match(checkRefFormat('refs/heads/a\x01')!, /control character 0x01/);
  assert.match(checkRefFormat('refs/heads/a\0b')!, /control character 0x00/);
  assert.match(checkRefFormat('refs//x')!, /'\/\/'/);
  assert.match(checkRefFormat('/refs/x')!, /starts with '\/'/);
  assert.match(checkRefFormat('refs/x/')!, /ends with '\/'/);
  assert.match(checkRefFormat('refs/x.')!, /ends with '\.'/);
  assert.match(checkRefFormat('main')!, /only one component/);
  assert.match(checkRefFormat('refs/a/*/b/*', { refspecPattern: true })!, /'\*'/);
  assert.match(checkRefFormat('refs/heads/\ud800x')!, /unpaired UTF-16 surrogate/);
  assert.equal(checkRefFormat('refs/heads/😀'), null);
  assert.equal(checkRefFormat(''), 'is empty');
});

test('checkRefPath allows refs/... and capitalised one-level names only', () => {
  for (const ok of ['HEAD', 'FETCH_HEAD', 'ORIG_HEAD', 'refs/heads/main', 'refs/tags/v1']) assert.equal(checkRefPath(ok), null, ok);
  for (const bad of ['config', 'index', 'objects/pack', 'refs/heads/../../config', 'refs/', 'refs', 'Head', 'HEAD/x',
    '../HEAD', 'hooks/pre-commit', 'refs/heads/a.lock', 'refs//heads/a', '/etc/passwd', 'HEAD.lock', 'logs/HEAD']) {
    assert.notEqual(checkRefPath(bad), null, bad);
  }
});

test('isPlainRefName accepts only names checkRefFormat accepts, and the usual ones', () => {
  // Random names over the characters the rules are about, plus the hand-picked and systematic ones.
  const pieces = ['a', 'Z', '0', '_', '-', '+', ',', '=', '%', '.', '..', '/', '//', '@', '{', '@{', '*', 'lock', '.lock', ' ', '~', '\x7f', 'é', '😀'];
  const next = seededInt(12345);
  const names = [...HAND_PICKED, ...systematic()];
  for (let k = 0; k < 100000; k++) {
    let name = '';
    for (let len = 1 + next(8); len > 0; len--) name += pieces[next(pieces.length)];
    names.push(name, `refs/heads/${name}`);
  }
  let plain = 0;
  for (const name of names) {
    if (!isPlainRefName(name)) continue;
    plain++;
    assert.equal(checkRefFormat(name, { allowOneLevel: true }), null, `${JSON.stringify(name)} is taken as plain`);
  }
  assert.ok(plain > 10000, `${plain} plain names`);
  for (const name of ['refs/heads/main', 'refs/tags/v2.39.5', 'refs/remotes/origin/HEAD', 'refs/heads/feature/a_b-c+d', 'HEAD', 'refs/pull/123/head']) {
    assert.ok(isPlainRefName(name), name);
  }
});
