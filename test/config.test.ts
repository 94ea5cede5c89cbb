import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Config, initialConfigText, type ConfigEntry } from '../src/config/index.js';
import { parseVariableName, writeVariable, type VariableWrite } from '../src/config/edit.js';
import { posixExtended } from '../src/config/posix-regex.js';
import { GitError } from '../src/core/errors.js';
import { GIT_ENV, git, rmrf, seededInt, tmpDir } from './helpers.js';

/** Runs `git config` and returns status, stdout and stderr without throwing. */
function gitConfig(args: string[], cwd = '/'): { status: number; out: Buffer; err: string } {
  const r = spawnSync('git', ['config', ...args], { cwd, env: GIT_ENV });
  return { status: r.status ?? -1, out: r.stdout, err: r.stderr.toString('utf8') };
}

/** `git config -l -z` entries as [name, value|null] pairs. */
function gitList(file: string, includes = false): [string, string | null][] {
  const r = gitConfig(['--file', file, ...(includes ? ['--includes'] : []), '-l', '-z']);
  assert.equal(r.status, 0, r.err);
  const items = r.out.toString('utf8').split('\0');
  items.pop();
  return items.map((item) => {
    const nl = item.indexOf('\n');
    return nl < 0 ? [item, null] : [item.slice(0, nl), item.slice(nl + 1)];
  });
}

function ourList(c: Config): [string, string | null][] {
  // A key above every section header has section '' and no subsection; git prints it bare.
  return c.list().map((e: ConfigEntry) => [
    e.section === '' && e.subsection === null ? e.key : `${e.section}${e.subsection === null ? '' : `.${e.subsection}`}.${e.key}`,
    e.value]);
}

/** A directory holding `config` with these bytes; the caller removes it. */
function configDir(content: string | Buffer): string {
  const dir = tmpDir('tsgit-config-');
  fs.writeFileSync(path.join(dir, 'config'), content);
  return dir;
}

const TRICKY: Record<string, string | Buffer> = {
  basic: '[core]\n\tbare = false\n\tfilemode = true\n',
  bomAndCrlf: Buffer.from('\xef\xbb\xbf[Core]\r\n\tBare = false\r\n\tname = a b\r\n', 'latin1'),
  quoting: '[a]\n  k1 = "  spaced  " tail ; comment\n\tk2 = x\t\t y  \n\tk3 = "a;b#c" # real comment\n\tk4 =\n\tk5\n',
  escapes: '[a]\n\tk = a\\tb\\nc\\bd\\"e\\\\f\n\tq = "in \\"quotes\\""\n',
  continuation: '[a]\n\tk = first \\\n  second\\\n\tthird\n\tlast = x\\',
  subsections: '[remote "origin"]\n\turl = u1\n[remote "Origin"]\n\turl = u2\n[Remote "origin"]\n\turl = u3\n'
    + '[sec "sub\\"q\\\\ \\x"]\n\tk = v\n[a "dots.in.sub"]\n\tk = d\n',
  legacy: '[Branch.Main]\n\tRemote = origin\n[a.b.c]\n\tk = v\n',
  multi: '[remote "o"]\n\tfetch = +refs/heads/*:refs/remotes/o/*\n\tfetch = +refs/tags/*:refs/tags/*\n[remote "o"]\n\tFETCH = third\n',
  headerThenKey: '[a] k = 1\n[b]k=2 ; c\n',
  comments: '# top\n; other\n[a] # after header\n\t# indented comment\n\tk = v # trailing\n\n\n',
  oddNames: 'top = 1\n[ "sub"]\nk = v\n[.x]\nk = v\n[a-b "c"]\nk-1 = v\n',
  unicode: Buffer.from('[user]\n\tname = J\xc3\xb6rg \xe2\x9c\x93\n[branch "f\xc3\xbc\xc3\x9f"]\n\tremote = o\n', 'latin1'),
  noTrailingNewline: '[a]\n\tk = v',
  emptyFile: '',
};

test('list() matches git config -l on tricky files', () => {
  for (const [name, content] of Object.entries(TRICKY)) {
    const dir = configDir(content);
    try {
      const file = path.join(dir, 'config');
      assert.deepEqual(ourList(Config.loadSync(dir)), gitList(file), name);
    } finally {
      rmrf(dir);
    }
  }
});

test('get and getAll agree with git config --get and --get-all', () => {
  const queries: [string, string | null, string][] = [
    ['a', null, 'k1'], ['a', null, 'k2'], ['a', null, 'k3'], ['a', null, 'k4'], ['a', null, 'k5'], ['a', null, 'missing'],
    ['a', null, 'k'], ['a', null, 'q'], ['a', null, 'last'],
    ['remote', 'origin', 'url'], ['remote', 'Origin', 'url'], ['REMOTE', 'origin', 'URL'], ['remote', 'ORIGIN', 'url'],
    ['sec', 'sub"q\\ x', 'k'], ['a', 'dots.in.sub', 'k'],
    ['branch', 'main', 'remote'], ['branch', 'Main', 'remote'], ['a', 'b.c', 'k'],
    ['remote', 'o', 'fetch'], ['user', null, 'name'], ['branch', 'füß', 'remote'],
    ['core', null, 'bare'], ['core', null, 'name'], ['a-b', 'c', 'k-1'], ['b', null, 'k'],
  ];
  for (const [name, content] of Object.entries(TRICKY)) {
    const dir = configDir(content);
    try {
      const file = path.join(dir, 'config');
      const c = Config.loadSync(dir);
      for (const [section, sub, key] of queries) {
        const full = `${section}${sub === null ? '' : `.${sub}`}.${key}`;
        const one = gitConfig(['--file', file, '--get', full]);
        const expected = one.status === 0 ? one.out.toString('utf8').replace(/\n$/, '') : undefined;
        assert.equal(c.get(section, sub, key), expected, `${name}: --get ${full}`);
        const all = gitConfig(['--file', file, '-z', '--get-all', full]);
        const values = all.status === 0 ? all.out.toString('utf8').split('\0').slice(0, -1) : [];
        assert.deepEqual(c.getAll(section, sub, key), values, `${name}: --get-all ${full}`);
      }
    } finally {
      rmrf(dir);
    }
  }
});

test('getBool and getInt agree with git config --bool and --int', () => {
  const values = ['true', 'TRUE', 'yes', 'On', 'false', 'No', 'off', '', '0', '1', '-1', '2', '10', '1k', '1K',
    '3m', '2g', '0x10', '0X1f', '010', '08', '0x', ' 12', '+5', '-0', '1.5', 'abc', '1kb', '1 k',
    '2147483647', '2147483648', '4294967296', '-2147483648', '-2g', '9007199254740991', '9007199254740992', '1t'];
  const text = '[t]\n\tbare\n' + values.map((v, i) => `\tk${i} = "${v}"\n`).join('');
  const dir = configDir(text);
  try {
    const file = path.join(dir, 'config');
    const c = Config.loadSync(dir);
    const keys = ['bare', ...values.map((_, i) => `k${i}`)];
    for (const key of keys) {
      const label = `${key} = ${JSON.stringify(c.get('t', null, key))}`;
      const b = gitConfig(['--file', file, '--bool', '--get', `t.${key}`]);
      if (b.status === 0) assert.equal(String(c.getBool('t', null, key)), b.out.toString().trim(), `--bool ${label}`);
      else assert.throws(() => c.getBool('t', null, key), /bad boolean config value/, `--bool ${label}: ${b.err}`);
      const n = gitConfig(['--file', file, '--int', '--get', `t.${key}`]);
      const gitValue = n.status === 0 ? Number(n.out.toString().trim()) : null;
      if (gitValue !== null && Number.isSafeInteger(gitValue)) {
        assert.equal(c.getInt('t', null, key), gitValue, `--int ${label}`);
      } else if (gitValue === null) {
        assert.throws(() => c.getInt('t', null, key), /bad numeric config value/, `--int ${label}: ${n.err}`);
      } else {
        // git's int64 goes further than a JS number can hold exactly; tsgit refuses those.
        assert.throws(() => c.getInt('t', null, key), /out of range/, `--int ${label}`);
      }
    }
    assert.equal(c.getBool('t', null, 'absent'), undefined);
    assert.equal(c.getInt('t', null, 'absent'), undefined);
  } finally {
    rmrf(dir);
  }
});

test('malformed files fail with the same file and line as git', () => {
  const bad: string[] = [
    '[a]\nb # c\n',
    '[a]\nb\n c = 1\n[a "x" ]\n',
    '[a]\nb = "unterminated\n',
    '[a]\nb = x\\q\n',
    '[a]\n\tk = "a\\\n\tb\n',
    '[a "unterminated\n',
    '[a\nk = v\n',
    '[a!]\n',
    '[]\n',
    '[a "x"\n',
    '1key = v\n',
    '[a]\n\t-k = v\n',
    '[a]\nk = v\n[b',
    '[a]\nk = "x\\',
    '[a]\nk v\n',
  ];
  for (const content of bad) {
    const dir = configDir(content);
    try {
      const file = path.join(dir, 'config');
      const r = gitConfig(['--file', file, '-l']);
      assert.notEqual(r.status, 0, `git accepted ${JSON.stringify(content)}`);
      const m = /bad config line (\d+) in file (.*)/.exec(r.err);
      assert.ok(m, r.err);
      assert.throws(() => Config.loadSync(dir), (e: unknown) => {
        assert.ok(e instanceof GitError && e.code === 'corrupt' && e.layer === 'config');
        assert.equal(e.message, `bad config line ${m[1]} in file ${file}`, JSON.stringify(content));
        return true;
      });
    } finally {
      rmrf(dir);
    }
  }
});

test('include.path is expanded in place, relative to the including file, like git --includes', () => {
  const dir = configDir('[a]\n\tk = 1\n[include]\n\tpath = inc/one\n\tpath = missing-file\n[a]\n\tk = 4\n');
  try {
    fs.mkdirSync(path.join(dir, 'inc'));
    fs.writeFileSync(path.join(dir, 'inc', 'one'), '[a]\n\tk = 2\n[include]\n\tpath = two\n');
    fs.writeFileSync(path.join(dir, 'inc', 'two'), '[a]\n\tk = 3\n[b "x"]\n\ty = z\n');
    const c = Config.loadSync(dir);
    assert.deepEqual(ourList(c), gitList(path.join(dir, 'config'), true));
    assert.deepEqual(c.getAll('a', null, 'k'), ['1', '2', '3', '4']);
    assert.equal(c.get('b', 'x', 'y'), 'z');
    assert.equal(c.list().find((e) => e.key === 'y')!.file, path.join(dir, 'inc', 'two'));
    // A file that includes itself stops at git's depth limit.
    fs.writeFileSync(path.join(dir, 'inc', 'two'), '[include]\n\tpath = two\n');
    assert.throws(() => Config.loadSync(dir), /exceeded maximum include depth \(10\)/);
  } finally {
    rmrf(dir);
  }
});

test('load (async) reads the same entries as loadSync; a missing file is an empty config', async () => {
  const dir = configDir(TRICKY.subsections!);
  try {
    assert.deepEqual((await Config.load(dir)).list(), Config.loadSync(dir).list());
    fs.rmSync(path.join(dir, 'config'));
    assert.deepEqual((await Config.load(dir)).list(), []);
  } finally {
    rmrf(dir);
  }
});

test('global and system files are read first when asked for', () => {
  const dir = configDir('[user]\n\tname = local\n');
  try {
    const globalFile = path.join(dir, 'global');
    fs.writeFileSync(globalFile, '[user]\n\tname = global\n\temail = g@example.com\n');
    const env = { HOME: dir, GIT_CONFIG_GLOBAL: globalFile, GIT_CONFIG_NOSYSTEM: '1' };
    const c = Config.loadSync(dir, { global: true, env });
    assert.equal(c.get('user', null, 'name'), 'local');
    assert.equal(c.get('user', null, 'email'), 'g@example.com');
    assert.deepEqual(c.getAll('user', null, 'name'), ['global', 'local']);
    assert.equal(Config.loadSync(dir).get('user', null, 'email'), undefined);
  } finally {
    rmrf(dir);
  }
});

test('set/add/unset write the bytes git config --replace-all/--add/--unset-all write', () => {
  type Op = ['set' | 'add', string, string | null, string, string] | ['unset', string, string | null, string];
  const ops: Op[] = [
    ['set', 'core', null, 'bare', 'true'],
    ['set', 'a', null, 'k1', 'replaced'],
    ['add', 'remote', 'o', 'fetch', '+refs/notes/*:refs/notes/*'],
    ['set', 'remote', 'o', 'fetch', 'only one now'],
    ['set', 'remote', 'new one', 'url', 'https://example.com/x.git'],
    ['add', 'remote', 'new one', 'fetch', '+refs/heads/*:refs/remotes/new one/*'],
    ['set', 'branch', 'main', 'remote', 'up'],
    ['set', 'sec', 'sub"q\\ x', 'k', 'w'],
    ['set', 'weird', null, 'v', ' lead;ing#\t"quote"\\ and\nnewline\rcr '],
    ['set', 'Upper', 'Sub', 'CamelKey', 'v'],
    ['set', 'hash', null, 'a', 'x#y'],
    ['set', 'hash', null, 'b', 'trailing '],
    ['set', 'hash', null, 'c', '\ttab-led'],
    ['add', 'a', null, 'k', 'added to header-line section'],
    ['set', 'b', null, 'k', 'three'],
    ['unset', 'a', null, 'k5'],
    ['unset', 'a', null, 'k2'],
    ['unset', 'b', null, 'k'],
    ['set', 'user', null, 'name', 'Jörg ✓'],
  ];
  for (const [name, content] of Object.entries(TRICKY)) {
    const ours = configDir(content);
    const theirs = configDir(content);
    try {
      const c = Config.loadSync(ours);
      const theirFile = path.join(theirs, 'config');
      for (const op of ops) {
        const full = `${op[1]}${op[2] === null ? '' : `.${op[2]}`}.${op[3]}`;
        if (op[0] === 'set') {
          c.set(op[1], op[2], op[3], op[4]);
          assert.equal(gitConfig(['--file', theirFile, '--replace-all', full, op[4]]).status, 0);
        } else if (op[0] === 'add') {
          c.add(op[1], op[2], op[3], op[4]);
          assert.equal(gitConfig(['--file', theirFile, '--add', full, op[4]]).status, 0);
        } else {
          c.unset(op[1], op[2], op[3]);
          // Status 5 means there was nothing to unset.
          assert.ok([0, 5].includes(gitConfig(['--file', theirFile, '--unset-all', full]).status));
        }
      }
      const before = ourList(c);
      c.save();
      const expected = gitList(theirFile);
      assert.deepEqual(fs.readFileSync(path.join(ours, 'config')).toString('latin1'),
        fs.readFileSync(theirFile).toString('latin1'), `${name}: the file's bytes`);
      assert.deepEqual(gitList(path.join(ours, 'config')), expected, name);
      assert.deepEqual(before, expected, `${name}: in-memory view before save`);
      assert.deepEqual(ourList(Config.loadSync(ours)), expected, `${name}: read back`);
      assert.ok(!fs.existsSync(path.join(ours, 'config.lock')));
    } finally {
      rmrf(ours);
      rmrf(theirs);
    }
  }
});

test('edits leave the other bytes of the file as they were', () => {
  const original = '# keep me\n[core]\n\tbare = false ; why\n\n; and me\n[remote "o"]\n  url = u   # spaced\n[x]\n';
  const dir = configDir(original);
  try {
    const c = Config.loadSync(dir);
    c.set('core', null, 'bare', 'true');
    c.add('remote', 'o', 'fetch', 'f');
    c.save();
    assert.equal(fs.readFileSync(path.join(dir, 'config'), 'utf8'),
      '# keep me\n[core]\n\tbare = true\n\n; and me\n[remote "o"]\n  url = u   # spaced\n\tfetch = f\n[x]\n');
  } finally {
    rmrf(dir);
  }
});

test('save keeps changes another writer made after load, and the file mode', () => {
  const dir = configDir('[core]\n\tbare = false\n');
  try {
    const file = path.join(dir, 'config');
    fs.chmodSync(file, 0o640);
    const c = Config.loadSync(dir);
    c.set('remote', 'origin', 'url', 'u');
    gitConfig(['--file', file, 'user.name', 'other writer']);
    c.save();
    assert.equal(Config.loadSync(dir).get('user', null, 'name'), 'other writer');
    assert.equal(Config.loadSync(dir).get('remote', 'origin', 'url'), 'u');
    assert.equal(fs.statSync(file).mode & 0o777, 0o640);
  } finally {
    rmrf(dir);
  }
});

test('an existing config.lock makes save fail clearly and leaves the file alone', () => {
  const dir = configDir('[core]\n\tbare = false\n');
  try {
    const lock = path.join(dir, 'config.lock');
    fs.writeFileSync(lock, 'someone else');
    const c = Config.loadSync(dir);
    c.set('core', null, 'bare', 'true');
    assert.throws(() => c.save(), (e: unknown) =>
      e instanceof GitError && e.code === 'locked' && e.message.includes(lock));
    assert.equal(fs.readFileSync(lock, 'utf8'), 'someone else');
    assert.equal(fs.readFileSync(path.join(dir, 'config'), 'utf8'), '[core]\n\tbare = false\n');
    fs.rmSync(lock);
    c.save();
    assert.equal(gitConfig(['--file', path.join(dir, 'config'), '--get', 'core.bare']).out.toString(), 'true\n');
  } finally {
    rmrf(dir);
  }
});

test('invalid names are refused before anything is written', () => {
  const dir = configDir('');
  try {
    const c = Config.loadSync(dir);
    assert.throws(() => c.set('bad section', null, 'k', 'v'), /invalid config section name/);
    assert.throws(() => c.set('a.b', null, 'k', 'v'), /invalid config section name/);
    assert.throws(() => c.set('a', null, '1k', 'v'), /invalid config key name/);
    assert.throws(() => c.set('a', 'new\nline', 'k', 'v'), /newline or NUL/);
    assert.throws(() => c.set('a', null, 'k', 'nul\0'), /contains NUL/);
    c.save();
    assert.equal(fs.readFileSync(path.join(dir, 'config'), 'utf8'), '');
  } finally {
    rmrf(dir);
  }
});

test('initialConfigText is byte for byte what git init writes', () => {
  for (const bare of [false, true]) {
    const dir = tmpDir();
    try {
      git(dir, ['init', '-q', ...(bare ? ['--bare'] : []), 'repo']);
      const file = path.join(dir, 'repo', ...(bare ? [] : ['.git']), 'config');
      assert.equal(initialConfigText({ bare }), fs.readFileSync(file, 'utf8'), `bare=${bare}`);
    } finally {
      rmrf(dir);
    }
  }
});

test('edits keep config.worktree (extensions.worktreeConfig) over the repository\'s config, as git reads them', () => {
  const dir = tmpDir();
  try {
    git(dir, ['init', '-q', 'repo']);
    const repo = path.join(dir, 'repo');
    const gitDir = path.join(repo, '.git');
    git(repo, ['config', 'user.name', 'from the repository']);
    git(repo, ['config', 'extensions.worktreeConfig', 'true']);
    git(repo, ['config', '--worktree', 'user.name', 'from config.worktree']);
    /** What git reads in the repository now: `git config -l` and `--get user.name`. */
    const expect = (c: Config, what: string) => {
      assert.equal(c.get('user', null, 'name'), git(repo, ['config', '--get', 'user.name']).trim(), what);
      const r = gitConfig(['-l', '-z'], repo);
      const items = r.out.toString('utf8').split('\0').slice(0, -1);
      assert.deepEqual(ourList(c), items.map((i) => [i.slice(0, i.indexOf('\n')), i.slice(i.indexOf('\n') + 1)]), what);
    };
    const c = Config.loadSync(gitDir);
    c.set('user', null, 'email', 'set@example.com');
    assert.equal(c.get('user', null, 'name'), 'from config.worktree');
    c.save();
    expect(c, 'after set and save');
    // Turned off, then on again by an edit: git reads config.worktree only while it is on.
    c.set('extensions', null, 'worktreeConfig', 'false');
    c.save();
    expect(c, 'extension off');
    const fresh = Config.loadSync(gitDir);
    fresh.set('extensions', null, 'worktreeConfig', 'true');
    fresh.save();
    expect(fresh, 'extension turned on by an edit');
  } finally {
    rmrf(dir);
  }
});

test('writeVariable leaves the bytes git config leaves, over random files and writes (seeded)', () => {
  const headers = ['[a]', '[A]', '[b "sub"]', '[b "Sub"]', '[b.sub]', '[c "x.y"]', '[d]', '[a] k = 3'];
  const lines = ['\tk = v1', ' \r\tk = cr', 'k=v2', ' K = "q;" # c', '\tk', '# comment', '; other', '', '\tj = 1', '\tk = v1 \\\n\tmore'];
  const names = ['a.k', 'A.K', 'a.K', 'b.sub.k', 'b.Sub.k', 'B.sub.K', 'c.x.y.k', 'd.k', 'd.j', 'e.new'];
  const patterns = [null, '^v', '1$', '!^v', '^$', 'q;', '('];
  const dir = tmpDir('tsgit-config-fuzz-');
  try {
    const file = path.join(dir, 'config');
    for (let seed = 1; seed <= 40; seed++) {
      const pick = seededInt(seed);
      const one = <T>(xs: readonly T[]): T => xs[pick(xs.length)]!;
      const parts: string[] = [];
      for (let i = pick(6); i >= 0; i--) {
        parts.push(one(headers));
        for (let j = pick(4); j > 0; j--) parts.push(one(lines));
      }
      let text = parts.join(pick(4) === 0 ? '\r\n' : '\n') + (pick(3) === 0 ? '' : '\n');
      for (let op = 0; op < 8; op++) {
        const mode = one(['set', 'set-all', 'add', 'replace-all', 'unset', 'unset-all'] as const);
        const name = one(names);
        const pattern = mode === 'set' || mode === 'add' ? null : one(patterns);
        const value = mode.startsWith('unset') ? null : one(['v', ' lead', 'x#y', 'a"b\\c', 'tab\there']);
        const label = `seed ${seed} op ${op}: ${mode} ${name} ${value} ${pattern} on ${JSON.stringify(text)}`;
        fs.writeFileSync(file, Buffer.from(text, 'latin1'));
        const args = mode === 'set' ? [name, value!] : mode === 'set-all' ? [name, value!, ...pattern === null ? ['.*'] : [pattern]]
          : mode === 'add' ? ['--add', name, value!] : [`--${mode}`, name, ...value === null ? [] : [value], ...pattern === null ? [] : [pattern]];
        const r = gitConfig(['--file', file, ...args]);
        if (pattern === '(') {
          assert.equal(r.status, 6, label);
          continue;
        }
        const re = pattern === null ? null : posixExtended(mode === 'set-all' && pattern === null ? '.*' : pattern.replace(/^!/, ''));
        const negate = pattern?.startsWith('!') ?? false;
        const effective = mode === 'set-all' && pattern === null ? /.*/s : re;
        const write: VariableWrite = {
          name: parseVariableName(name), value, all: mode === 'replace-all' || mode === 'unset-all',
          ...mode === 'add' ? { matches: () => false } : effective ? { matches: (v: string | null) => negate !== (v !== null && effective.test(v)) } : {},
        };
        const ours = writeVariable(text, file, write);
        if (r.status === 5) {
          assert.ok('refused' in ours, `${label}: git set nothing`);
          assert.equal(ours.refused === 'multiple-values', r.err.includes('has multiple values'), label);
          continue;
        }
        assert.equal(r.status, 0, `${label}: ${r.err}`);
        const theirs = fs.readFileSync(file).toString('latin1');
        assert.ok('text' in ours, label);
        assert.equal(ours.text, theirs, label);
        text = theirs;
      }
    }
  } finally {
    rmrf(dir);
  }
});
