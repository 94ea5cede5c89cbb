// `tsgit config` against `git config` (2.39): each case starts two copies of one repository, runs
// the same command lines with git in one and tsgit in the other, and compares exit status,
// stdout and stderr (git's usage text aside, which names git), then every file outside
// .git/objects and .git/hooks, byte for byte. tsgit's command lines of a case run in one process
// (tsgitBatch) but in every fourth case, which spawns bin/tsgit for each. Global and system files
// are always temporary files of the case: a `git config --global` with GIT_CONFIG_GLOBAL=/dev/null
// would replace /dev/null.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { GIT_ENV, TSGIT, git, repositorySnapshot, rmrf, tmpDir } from './helpers.js';
import { tsgitBatch } from './cli-batch.js';

// realpath: includeIf's gitdir: matches the git directory's real path, which a symbolic link in $TMPDIR would change.
const root = fs.realpathSync(tmpDir('tsgit-config-cmd-'));
after(() => rmrf(root));

const template = path.join(root, 'template');
git(root, ['init', '-q', '-b', 'main', template]);
fs.mkdirSync(path.join(template, 'sub', 'deeper'), { recursive: true });

export interface Step {
  /** The arguments after `config`; '@ROOT@' in one stands for the case's copy of the repository. */
  args: string[];
  /** Options before `config`: `-c name=value`, `-C dir`, `--git-dir=...`. */
  global?: string[];
  /** Directory to run in, relative to the repository's top ('' for the top). */
  cwd?: string;
  /** More environment; '@ROOT@' in a value stands for the case's copy of the repository. */
  env?: Record<string, string | undefined>;
  input?: string;
}

export interface Case {
  name: string;
  /** Files to write before the steps, relative to the top ('.git/config' replaces git init's); '@ROOT@' as in Step. */
  files?: Record<string, string>;
  /** Run in each copy after the files are written. */
  prepare?: (top: string) => void;
  steps: (Step | string[])[];
}

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The case's environment: temporary global and system files, '@ROOT@' replaced. */
function environment(top: string, extra: Step['env'] = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...GIT_ENV, HOME: path.join(top, 'home'), GIT_CONFIG_GLOBAL: path.join(top, 'global.cfg'),
    GIT_CONFIG_SYSTEM: path.join(top, 'system.cfg'), GIT_CONFIG_NOSYSTEM: '1',
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v.replaceAll('@ROOT@', top);
  }
  for (const k of ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM']) {
    const file = env[k] === undefined ? undefined : fs.statSync(env[k]!, { throwIfNoEntry: false });
    assert.ok(!file || file.isFile(), `${k} must not be a device: writes rename over it`);
  }
  return env;
}

/** The command line of `step` in the copy `top`. */
function argsOf(top: string, step: Step): string[] {
  return [...step.global ?? [], 'config', ...step.args].map((a) => a.replaceAll('@ROOT@', top));
}

/** Output as compared: `top` as @ROOT@; git's usage text names git and lists its own options the same way, so only the message before it is compared. */
function shown(top: string, b: Buffer): string {
  return b.toString('latin1').replaceAll(top, '@ROOT@').replace(/usage: (git|tsgit) config[^]*$/, 'usage: ...\n');
}

function run(program: 'git' | 'tsgit', top: string, step: Step): Result {
  const [cmd, pre] = program === 'git' ? ['git', []] : [process.execPath, [TSGIT]];
  const r = spawnSync(cmd, [...pre, ...argsOf(top, step)], {
    cwd: path.join(top, step.cwd ?? ''), env: environment(top, step.env), input: step.input ?? '',
  });
  return { status: r.status, stdout: shown(top, r.stdout), stderr: shown(top, r.stderr) };
}

/**
 * The steps run with tsgit in `top`: each in a process of its own when `spawned`, else the runs of
 * steps without input each in one process (tsgitBatch), and a step with input spawned (the batch
 * child's stdin is not the step's).
 */
function runTsgit(top: string, steps: Step[], spawned: boolean): Result[] {
  const out: Result[] = [];
  for (let i = 0; i < steps.length;) {
    let j = i;
    while (!spawned && j < steps.length && steps[j]!.input === undefined) j++;
    if (j === i) {
      out.push(run('tsgit', top, steps[i++]!));
      continue;
    }
    const batch = steps.slice(i, j).map((s) => ({ cwd: path.join(top, s.cwd ?? ''), args: argsOf(top, s), env: environment(top, s.env) }));
    out.push(...tsgitBatch(batch, environment(top)).map((r) => ({ status: r.status, stdout: shown(top, r.stdout), stderr: shown(top, r.stderr) })));
    i = j;
  }
  return out;
}


let counter = 0;

/** Runs a case with git and with tsgit and compares everything. */
export function compare(c: Case, base = template): void {
  const n = counter++;
  const a = path.join(root, `${n}-git`), b = path.join(root, `${n}-tsgit`);
  for (const top of [a, b]) {
    fs.cpSync(base, top, { recursive: true });
    fs.mkdirSync(path.join(top, 'home'), { recursive: true });
    for (const [file, content] of Object.entries(c.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(top, file)), { recursive: true });
      fs.writeFileSync(path.join(top, file), Buffer.from(content.replaceAll('@ROOT@', top), 'latin1'));
    }
    c.prepare?.(top);
  }
  try {
    const steps = c.steps.map((s) => Array.isArray(s) ? { args: s } : s);
    // git's run first, in its copy, then tsgit's in the other. Every fourth case spawns bin/tsgit
    // for each step, so that the batch stands for the CLI only where the two are seen to agree.
    const theirs = steps.map((s) => run('git', a, s));
    const ours = runTsgit(b, steps, n % 4 === 0);
    steps.forEach((step, i) => assert.deepEqual(ours[i], theirs[i], `${c.name}: config ${step.args.map((x) => JSON.stringify(x)).join(' ')}`));
    assert.deepEqual(repositorySnapshot(b, '@ROOT@'), repositorySnapshot(a, '@ROOT@'), `${c.name}: the files`);
  } finally {
    rmrf(a);
    rmrf(b);
  }
}

const TEXT = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
# a comment
[remote "origin"]
\turl = https://example.com/repo.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
\tfetch = +refs/tags/*:refs/tags/*
[Remote "Origin"]
\turl = other
[branch.Main]
\tremote = origin
[a]
\tbare
\tempty =
\tn = 10k
\tneg = -3
\tyes = Yes
\tb = x*y
\tquoted = "  spaced ; # "
\tmulti = one
\tmulti = two
\tmulti = three
[a "sub.with.dots"]
\tk = v
`;

test('reading: --get, --get-all, --get-regexp with value patterns, --list and its display options', () => {
  compare({
    name: 'read',
    files: { '.git/config': TEXT },
    steps: [
      ['--list'], ['-l', '-z'], ['--list', '--name-only'], ['-l', '--show-origin'], ['-l', '--show-scope', '--show-origin', '-z'],
      ['core.bare'], ['--get', 'core.bare'], ['--get', 'CORE.BARE'], ['--get', 'nosuch.key'], ['--get', 'remote.origin.url'],
      ['--get', 'remote.Origin.url'], ['--get', 'branch.main.remote'], ['--get', 'branch.Main.remote'], ['--get', 'a.sub.with.dots.k'],
      ['--get', 'a.bare'], ['--get', 'a.empty'], ['--get', 'a.quoted'], ['--get', 'a.multi'], ['--get-all', 'a.multi'],
      ['--get-all', 'a.multi', 't'], ['--get', 'a.multi', '^o'], ['--get-all', 'a.multi', '!^t'], ['--get-all', 'a.multi', 'o$', '-z'],
      ['--get', '--fixed-value', 'a.b', 'x*y'], ['--get', 'a.b', 'x*y'], ['--get-all', 'a.multi', '('], ['--get-all', '--show-origin', 'a.multi'],
      ['--get-all', '--show-scope', 'a.bare'], ['--get-regexp', 'remote'], ['--get-regexp', '^A\\.'], ['--get-regexp', 'a.MULTI', 'o'],
      ['--get-regexp', '--name-only', 'fetch'], ['--get-regexp', '-z', '^a\\.(bare|n)$'], ['--get-regexp', '('], ['--get-regexp', 'x', '*'],
      ['--get-regexp', '[[:upper:]]'], ['--get-regexp', 'a\\.', '[]*]'], ['--get-regexp', 'a\\.', 'x**'], ['--get-regexp', 'a\\.', '\\<one\\>'],
      ['--get', 'nosection'], ['--get', 'a.'], ['--get', 'a.1b'], ['--get', 'a b.c'], ['--get-all', 'sec.tion.'],
    ],
  });
});

test('typed reading: --type and its short forms, --default, and the errors of bad values', () => {
  compare({
    name: 'types',
    files: { '.git/config': TEXT + '[t]\n\tcolor = bold red ul\n\tbadcolor = purple\n\thome = ~/x\n\tdate = never\n\tabs = 2023-11-14 22:13:20 +0000\n\tbaddate = someday\n' },
    steps: [
      ['--bool', 'a.yes'], ['--bool', 'a.bare'], ['--bool', 'a.empty'], ['--int', 'a.n'], ['--type=int', 'a.neg'], ['--bool-or-int', 'a.n'],
      ['--bool-or-int', 'a.yes'], ['--bool-or-str', 'a.b'], ['--bool-or-str', 'a.yes'], ['--type', 'bool-or-str', 'a.bare'], ['--bool-or-str', 'a.n'],
      ...['default', 'brightred black', 'normal red', '#ff00aa bold', '255 17', '-1', 'reset dim', 'no-ul strike nobold', '12 4', 'Blue BRIGHTgreen',
        'red green blue', 'bold', '', '  ', '256', '#ff00a'].map((color) => ['--type=color', '--default', color, 'a.none']),
      ['--int', 'a.b'], ['--bool', 'a.b'], ['--int', 'a.bare'], ['--path', 't.home'], ['--path', 'a.bare'], ['--expiry-date', 't.date'],
      ['--expiry-date', 't.abs'], ['--expiry-date', 't.baddate'], ['--type=color', 't.color'], ['--type=color', 't.badcolor'],
      ['--get-regexp', '--bool', 'a.yes'], ['--int', '--get-all', 'a.n'], ['-t', 'int', 'a.n'], ['--int', '--no-type', 'a.n'],
      ['--no-type', '--int', 'a.n'], ['--type=bogus', 'a.n'], ['--int', '--bool', 'a.n'], ['--int', '--type=int', 'a.n'],
      ['--default', 'dflt', 'a.none'], ['--default', 'dflt', 'a.n'], ['--int', '--default', '2k', 'a.none'], ['--int', '--default', 'x', 'a.none'],
      ['--bool', '--default', 'x', 'a.none'], ['--type=color', '--default', 'blue', 'a.none'], ['--type=color', '--default', 'nope', 'a.none'],
      ['--expiry-date', '--default', 'bogus', 'a.none'], ['--path', '--default', '~/y', 'a.none'], ['--path', '--default', '~nosuchuser/y', 'a.none'],
      ['--path', '--default', '~root/y', 'a.none'], ['--path', '--default', '~root', 'a.none'], ['--path', '--default', '%(prefix)/share', 'a.none'],
      ['--show-scope', '--default', 'd', 'a.none'], ['--get-color', 't.color'], ['--get-color', 't.none', 'green'], ['--get-color', 't.badcolor'],
      ['--get-color', 't.none', 'nocolor'], ['--get-colorbool', 'color.diff', 'true'],
      ...[['color.ui=always'], ['color.ui=never'], ['color.ui=auto'], ['color.ui=false'], ['diff.color=always'], ['color.diff=never', 'color.ui=always']]
        .flatMap((settings) => ['true', 'false', undefined].map((tty) => ({
          args: ['--get-colorbool', 'color.diff', ...tty === undefined ? [] : [tty]], global: settings.flatMap((c) => ['-c', c]), env: { TERM: 'xterm' },
        }))),
    ],
  });
});

test('the command line, includes and the files git reads in its order', () => {
  compare({
    name: 'sources',
    files: {
      '.git/config': '[include]\n\tpath = extra.cfg\n[x]\n\tk = local\n',
      '.git/extra.cfg': '[x]\n\tk = included\n\tonly = inc\n',
      'global.cfg': '[x]\n\tk = global\n\tg = 1\n',
      'system.cfg': '[x]\n\tk = system\n',
    },
    steps: [
      ['--get-all', 'x.k'], ['--show-origin', '--show-scope', '--get-all', 'x.k'], ['--local', '--get-all', 'x.k'], ['--local', '--includes', '--get-all', 'x.k'],
      ['--no-includes', '--get-all', 'x.k'], ['--global', '-l'], ['--global', '--show-scope', '--show-origin', '-l'],
      { args: ['--show-scope', '--show-origin', '-l'], env: { GIT_CONFIG_NOSYSTEM: undefined } },
      { args: ['--system', '-l'] }, { args: ['--system', '-l'], env: { GIT_CONFIG_SYSTEM: '@ROOT@/none.cfg' } },
      { args: ['--show-scope', '--show-origin', '--get-all', 'x.k'], env: { GIT_CONFIG_PARAMETERS: "'x.k'='param' 'x.bare'" } },
      { args: ['--get-all', 'x.k'], env: { GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'x.k', GIT_CONFIG_VALUE_0: 'count', GIT_CONFIG_KEY_1: 'X.K', GIT_CONFIG_VALUE_1: '' } },
      { args: ['-l'], env: { GIT_CONFIG: '@ROOT@/.git/extra.cfg' } },
      { args: ['--show-origin', '-l'], cwd: 'sub', env: {} }, { args: ['--show-origin', '-f', '../.git/extra.cfg', '-l'], cwd: 'sub' },
      { args: ['-f', 'nofile', '-l'] }, { args: ['-f', 'nofile', '--get', 'x.k'] },
      { args: ['-f', '-', '--show-origin', '-l'], input: '[s]\n\tk = stdin\n' }, { args: ['-f', '-', '--get', 's.k'], input: '[s\n' },
      { args: ['--show-origin', '--get-all', 'x.k'], env: { GIT_DIR: '@ROOT@/.git' } }, { args: ['--show-origin', '-l'], cwd: '.git' },
      // The git directory named as git's setup leaves it: as given or found, its real path where git starts below the top.
      ...[{ GIT_DIR: '.git/' }, { GIT_DIR: './.git' }, { GIT_DIR: '.git', GIT_WORK_TREE: '.' }, { GIT_WORK_TREE: 'sub' }]
        .map((env) => ({ args: ['--show-origin', '--get-all', 'x.k'], env })),
      ...[{ GIT_DIR: '../.git', GIT_WORK_TREE: '..' }, { GIT_DIR: '../.git', GIT_WORK_TREE: '.' }, { GIT_WORK_TREE: '..' }, { GIT_WORK_TREE: '.' }]
        .map((env) => ({ args: ['--show-origin', '--get-all', 'x.k'], env, cwd: 'sub' })),
      { args: ['--show-origin', '--get-all', 'x.k'], cwd: '.git/objects' },
      { args: ['--show-origin', '--show-scope', '--get-all', 'x.k'], global: ['-c', 'x.k=dash-c', '-c', 'X.Bare'] },
      { args: ['--show-origin', '--get', 'x.k'], global: ['-C', 'sub', '--git-dir=../.git'] },
    ],
  });
});

test('setting, adding and replacing: the file git writes, the statuses and messages for several values', () => {
  compare({
    name: 'set',
    files: { '.git/config': TEXT },
    steps: [
      ['core.bare', 'true'], ['core.ignoreCase', 'true'], ['Core.NewKey', 'v'], ['New.Sub.KeyName', 'v'], ['new.Sub.other', 'w'],
      ['new.sub.lower', 'x'], ['remote.origin.url', 'u2'], ['remote.Origin.url', 'u3'], ['branch.Main.remote', 'up'], ['branch.main.merge', 'm'],
      ['a.multi', 'x'], ['a.multi', 'new', 'two'], ['a.multi', 'nomatch', 'zzz'], ['--replace-all', 'a.multi', 'r', '^t'],
      ['--add', 'a.multi', 'added'], ['--add', 'fresh.key', 'v'], ['--replace-all', 'remote.origin.fetch', 'only'],
      ['a.quote', ' lead'], ['a.quote2', 'trail '], ['a.hash', 'x#y'], ['a.semi', 'a;b'], ['a.mid', 'in side'], ['a.esc', 'tab\there "q" back\\slash\nnl'],
      ['a.sub.with.dots.k', 'w'], ['--bool', 'a.bool', 'yes'], ['--int', 'a.int', '1k'], ['--bool-or-int', 'a.boi', 'on'],
      ['--bool-or-int', 'a.boi2', '5m'], ['--bool-or-str', 'a.bos', 'off'], ['--bool-or-str', 'a.bos2', 'text'], ['--int', 'a.bad', 'x'],
      ['--bool', 'a.bad', 'x'], ['--type=color', 'a.col', 'red bold'], ['--type=color', 'a.col', 'purple'], ['--path', 'a.p', '~/x'],
      ['--fixed-value', 'a.b', 'lit', 'x*y'], ['a.bare', 'v', 'x'], ['a.bare', 'v', '!x'],
      ['nosection', 'v'], ['a.', 'v'], ['a.1b', 'v'], ['a b.c', 'v'], ['.a.b', 'v'], ['a.b', 'v', '('], ['top.level', 'v'],
      ['a.b', 'v', '(', 'extra'],
    ],
  });
});

test('unsetting: one value, several, by pattern, and the section that empties', () => {
  compare({
    name: 'unset',
    files: { '.git/config': TEXT + '[empty1]\n\tonly = 1\n[keep]\n\t# about k\n\tk = 1\n[gone "x"]\n\tk = 1\n\tj = 2\n[gone "x"]\n\tk = 3\n[last]\n\tk = 1' },
    steps: [
      ['--unset', 'a.multi'], ['--unset', 'a.multi', 'two'], ['--unset-all', 'a.multi', '^t'], ['--unset', 'a.nosuch'], ['--unset-all', 'a.nosuch'],
      ['--unset', 'empty1.only'], ['--unset', 'keep.k'], ['--unset-all', 'gone.x.k'], ['--unset', 'gone.x.j'], ['--unset', 'last.k'],
      ['--unset', 'a.bare'], ['--unset', 'a.b', 'x*y'], ['--unset', '--fixed-value', 'a.b', 'x*y'], ['--unset-all', 'remote.origin.fetch'],
      ['--unset', 'core.bare', '('], ['--unset', 'nosection'], ['--unset', 'a'], ['--unset'], ['--unset-all', 'a.x', 'y', 'z'],
    ],
  });
});

test('sections: --rename-section and --remove-section', () => {
  compare({
    name: 'sections',
    files: { '.git/config': TEXT + '[b "C"] z = 3\n [b "C"]\n# c\n\tw = 4\n[d.E] q = 1\n' },
    steps: [
      ['--rename-section', 'b.C', 'new.Sub "q\\'], ['--rename-section', 'core', 'x'], ['--rename-section', 'Core', 'x'],
      ['--rename-section', 'a', 'x y'], ['--rename-section', 'a', ''], ['--rename-section', 'd.E', 'n'], ['--rename-section', 'remote.origin', 'remote.upstream'],
      ['--remove-section', 'Remote.Origin'], ['--remove-section', 'a'], ['--remove-section', 'nosuch'], ['--remove-section', 'a', 'b'],
      ['--rename-section', 'a'], ['-f', 'missing.cfg', '--remove-section', 'x'], ['-f', 'missing2.cfg', '--rename-section', 'x', 'y'],
    ],
  });
});

test('where writes go: -f (from a subdirectory), --global, --system, --local, --worktree, and outside a repository', () => {
  compare({
    name: 'locations',
    files: { 'home/.config/git/config': '[xdg]\n\tk = 1\n' },
    steps: [
      { args: ['-f', 'rel.cfg', 'a.b', 'c'], cwd: 'sub' }, { args: ['-f', '../rel.cfg', 'a.b', 'd'], cwd: 'sub/deeper' },
      { args: ['--file=new.cfg', '--unset', 'a.b'] }, ['--global', 'g.k', 'v'], ['--global', '--get', 'g.k'], ['--system', 's.k', 'v'],
      ['--local', 'l.k', 'v'], ['--worktree', 'w.k', 'v'],
      { args: ['--global', 'h.k', 'v'], env: { GIT_CONFIG_GLOBAL: undefined } },
      { args: ['--global', '--show-origin', '-l'], env: { GIT_CONFIG_GLOBAL: undefined } },
      { args: ['--global', 'h.k', 'v'], env: { GIT_CONFIG_GLOBAL: undefined, HOME: undefined } },
      ['--global', '--local', 'a.b'], ['--file', 'x', '--blob', 'HEAD', '-l'], { args: ['-f', '-', 'a.b', 'c'], input: '' },
      { args: ['a.b', 'c'], cwd: 'home' }, ['-f', 'no/such/dir/file', 'a.b', 'c'],
    ],
  });
  const outside = tmpDir('tsgit-config-outside-');
  try {
    compare({
      name: 'outside a repository',
      steps: [['a.b', 'c'], ['--local', '-l'], ['--worktree', 'a.b', 'c'], ['--blob', 'HEAD', '-l'], ['--global', 'o.k', 'v'], ['--get', 'o.k'], ['-l'],
        ['-e'], ['--local', '--get', 'a.b']],
    }, outside);
  } finally {
    rmrf(outside);
  }
});

test('--blob reads a blob of the repository; --worktree writes config.worktree once extensions.worktreeConfig is on', () => {
  const base = path.join(root, 'with-history');
  git(root, ['init', '-q', '-b', 'main', base]);
  fs.writeFileSync(path.join(base, 'settings.cfg'), '[blob]\n\tk = from the blob\n\tn = x\n');
  git(base, ['add', 'settings.cfg']);
  git(base, ['commit', '-q', '-m', 'settings']);
  git(base, ['worktree', 'add', '-q', '--detach', '../with-history-wt']);
  try {
    compare({
      name: 'blob and worktree',
      steps: [
        ['--blob', 'HEAD:settings.cfg', '-l'], ['--blob', 'HEAD:settings.cfg', '--show-origin', '--get', 'blob.k'], ['--blob', 'HEAD:nosuch', '-l'],
        ['--blob', 'HEAD', '-l'], ['--blob', 'HEAD:nosuch', '--get', 'blob.k'], ['--blob', 'HEAD:settings.cfg', '--int', 'blob.n'],
        ['--blob', 'HEAD:settings.cfg', 'blob.k', 'v'], ['--worktree', 'w.k', 'v'], ['extensions.worktreeConfig', 'true'],
        ['--worktree', 'w.k', 'v'], ['--worktree', '--show-scope', '--show-origin', '-l'], ['--show-scope', '--show-origin', '-l'],
      ],
    }, base);
  } finally {
    rmrf(path.join(root, 'with-history-wt'));
    rmrf(base);
  }
});

test('includeIf: gitdir:, gitdir/i: and onbranch: conditions, relative, with ~/, ./ and trailing slashes', () => {
  const includes = (conditions: string[]) => conditions.map((c, i) => `[includeIf "${c}"]\n\tpath = inc${i}.cfg\n`).join('');
  const conditions = ['gitdir:@ROOT@/.git', 'gitdir:@ROOT@/', 'gitdir:@ROOT@', 'gitdir:.git', 'gitdir:**/.GIT', 'gitdir/i:**/.GIT',
    'gitdir:nomatch/', 'gitdir:./', 'gitdir:~/../.git', 'gitdir:@ROOT@/*/', 'onbranch:main', 'onbranch:feat/', 'onbranch:f*', 'bogus:x'];
  const files: Record<string, string> = { '.git/config': `[x]\n\tk = local\n${includes(conditions)}` };
  conditions.forEach((c, i) => files[`.git/inc${i}.cfg`] = `[x]\n\tk = ${c}\n`);
  compare({ name: 'includeIf', files, steps: [['--get-all', 'x.k'], ['--show-origin', '-l'], ['--local', '--includes', '--get-all', 'x.k'], ['--no-includes', '--get-all', 'x.k']] });
  compare({ name: 'includeIf on a branch', files: { ...files, '.git/HEAD': 'ref: refs/heads/feat/one\n' }, steps: [['--get-all', 'x.k']] });
  compare({
    name: 'includeIf in the global file',
    files: { 'global.cfg': '[includeIf "gitdir:@ROOT@/.git"]\n\tpath = @ROOT@/g.cfg\n', 'g.cfg': '[g]\n\tk = 1\n' },
    steps: [['--show-scope', '--show-origin', '-l'], { args: ['--show-origin', '-l'], cwd: 'home' }],
  });
});

test('include.path expands ~user from the password file, and one it cannot expand stops the reading, as in git', () => {
  compare({
    name: 'include ~user',
    files: { '.git/config': '[x]\n\tk = local\n[include]\n\tpath = ~root/../@ROOT@/inc.cfg\n', 'inc.cfg': '[x]\n\tk = included\n' },
    steps: [['--get-all', 'x.k']],
  });
  // git says "error: could not expand include path" and then names the line; tsgit says the first, in one fatal line.
  const top = fs.mkdtempSync(path.join(root, 'include-unknown-'));
  fs.cpSync(template, top, { recursive: true });
  fs.appendFileSync(path.join(top, '.git', 'config'), '[include]\n\tpath = ~no-such-user-tsgit/x\n');
  const theirs = spawnSync('git', ['config', 'core.bare'], { cwd: top, env: environment(top) });
  const ours = spawnSync(process.execPath, [TSGIT, 'config', 'core.bare'], { cwd: top, env: environment(top) });
  assert.equal(theirs.status, 128);
  assert.equal(ours.status, 128);
  assert.match(theirs.stderr.toString(), /^error: could not expand include path '~no-such-user-tsgit\/x'\n/);
  assert.equal(ours.stderr.toString(), "fatal: could not expand include path '~no-such-user-tsgit/x'\n");
});

test('what actions/checkout runs: credentials in a file of their own, included for the git directory and its work trees', () => {
  const base = path.join(root, 'checkout-flow');
  git(root, ['init', '-q', '-b', 'main', base]);
  git(base, ['commit', '-q', '--allow-empty', '-m', 'one']);
  const creds = '@ROOT@/runner-temp/git-credentials-0f3c.config';
  const header = 'http.https://github.com/.extraheader';
  try {
    compare({
      name: 'checkout flow',
      files: { 'runner-temp/.keep': '' },
      prepare: (top) => git(top, ['worktree', 'add', '-q', '--detach', 'wt']),
      steps: [
        ['--local', 'gc.auto', '0'], ['--local', '--name-only', '--get-regexp', 'core\\.sshCommand'], ['--local', '--unset-all', header],
        ['--file', creds, header, 'AUTHORIZATION: basic ***'], ['--local', `includeIf.gitdir:@ROOT@/.git.path`, creds],
        ['--local', `includeIf.gitdir:@ROOT@/.git/worktrees/*.path`, creds],
        ['--local', 'includeIf.gitdir:/github/workspace/.git.path', '/github/runner_temp/git-credentials-0f3c.config'],
        ['--get', header], ['--show-origin', '--get-regexp', '.*extraheader'], { args: ['--show-origin', '--get', header], cwd: 'wt' },
        ['extensions.worktreeConfig', 'true'], { args: ['--worktree', 'w.k', 'v'], cwd: 'wt' },
        { args: ['--show-origin', '--get-regexp', '^w\\.|^extensions'], cwd: 'wt' },
        { args: ['--show-origin', '--get-regexp', '^w\\.|^extensions'], cwd: 'wt', env: { GIT_COMMON_DIR: '../.git' } },
        ['--get-urlmatch', 'http.extraheader', 'https://github.com/owner/repo'],
        ['--local', '--name-only', '--get-regexp', '^includeIf\\.gitdir:'], ['--local', '--get-all', 'includeIf.gitdir:@ROOT@/.git.path'],
        ['--local', '--unset', 'includeIf.gitdir:@ROOT@/.git.path', creds], ['--local', '--unset', 'includeIf.gitdir:@ROOT@/.git/worktrees/*.path', creds],
        ['--get', header], ['--global', '--add', 'safe.directory', '@ROOT@'], ['--global', '--get-all', 'safe.directory'],
        ['--local', header, 'AUTHORIZATION: basic xyz'], ['--local', '--unset-all', header], ['--local', '-l'],
      ],
    }, base);
  } finally {
    rmrf(base);
  }
});

test('the lock: a held config.lock fails the write with status 255 and leaves the file alone', () => {
  compare({
    name: 'lock',
    files: { '.git/config.lock': 'someone else\n', 'x.cfg.lock': '' },
    steps: [['a.b', 'c'], ['--unset', 'core.bare'], ['--rename-section', 'core', 'x'], ['-f', 'x.cfg', 'a.b', 'c'], ['--get', 'core.bare']],
  });
});

test('option errors: one action, one file, argument counts, and what applies to what', () => {
  compare({
    name: 'options',
    files: { '.git/config': TEXT },
    steps: [
      ['--get', '--add', 'a.b'], ['--get', '-l'], ['--global', '--system', '-l'], ['-f', 'a', '--local', '-l'], [], ['a', 'b', 'c', 'd'],
      ['--get'], ['--get', 'a', 'b', 'c'], ['-l', 'x'], ['--add', 'a.b'], ['--get-urlmatch', 'http'], ['--name-only', '--get', 'a.b'],
      ['--show-origin', 'a.b', 'c'], ['--default', 'x', '--get-all', 'a.b'], ['--fixed-value', '--get', 'a.b'], ['--fixed-value', 'a.b', 'c'],
      ['--fixed-value', '--add', 'a.b', 'c'], ['--get-regexp', 'a', '--name-only'], ['--get-color', '--bool', 'x'], ['--lis'], ['--l'],
      ['--get-regex', 'core'], ['--no-get', 'core.bare'], ['-lz'], ['--get-all', '--', 'a.multi'], ['-tint', 'a.n'], ['--no-null', '-z', '-l'],
    ],
  });
});

test('--get-urlmatch: the value for a URL, or every key of the section that applies to it', () => {
  compare({
    name: 'urlmatch',
    files: {
      '.git/config': '[http]\n\tsslVerify = true\n\textraHeader = gen\n[http "https://example.com"]\n\tsslVerify = false\n'
        + '[http "https://example.com/a"]\n\tproxy = p1\n[http "https://*.example.com"]\n\tcookieFile = c\n[http "https://other.org"]\n\textraHeader = h\n'
        + '[http "https://user@example.com"]\n\tproxy = p2\n',
    },
    steps: [
      ['--get-urlmatch', 'http.sslverify', 'https://example.com/a/b'], ['--get-urlmatch', 'http.SSLVERIFY', 'https://foo.org'],
      ['--get-urlmatch', 'http', 'https://example.com/a/b'], ['--get-urlmatch', 'http', 'https://x.example.com'], ['--get-urlmatch', '-z', 'http', 'https://x.example.com'],
      ['--get-urlmatch', 'http.proxy', 'https://user@example.com/a'], ['--get-urlmatch', 'http.nope', 'https://example.com'],
      ['--get-urlmatch', 'http', 'notaurl'], ['--get-urlmatch', '--bool', 'http.sslverify', 'https://example.com'], ['--get-urlmatch', 'nosection', 'https://a.b'],
    ],
  });
});

test('--edit runs the editor on the file from the top of the work tree; --global -e starts a missing file', () => {
  const editor = "printf '# edited in %s\\n' \"$(pwd)\" >> \"$1\"; echo \"$@\"";
  compare({
    name: 'edit',
    steps: [
      { args: ['-e'], env: { GIT_EDITOR: editor }, cwd: 'sub' }, { args: ['--edit', '-f', 'x.cfg'], env: { GIT_EDITOR: editor } },
      { args: ['-e'], env: { GIT_EDITOR: 'false' } }, { args: ['-e'], env: { GIT_EDITOR: ':' } },
      { args: ['-e'], env: { GIT_EDITOR: undefined, EDITOR: undefined, VISUAL: undefined, TERM: 'dumb' } },
      { args: ['-e'], env: { GIT_EDITOR: undefined, EDITOR: 'echo from-editor', TERM: 'dumb' } },
      { args: ['-e'], env: { GIT_EDITOR: undefined, GIT_CONFIG_PARAMETERS: "'core.editor'='echo core'" } },
      { args: ['--global', '-e'], env: { GIT_EDITOR: 'true' } }, { args: ['-e', 'a.b'], env: { GIT_EDITOR: 'true' } },
    ],
  });
});
