// Filter drivers at checkout, against git checking out the same commit with the same
// configuration: drivers nobody configured, `required` with nothing to run, smudge commands
// (quoting of %f, the environment and directory they run in), failing filters, and the
// long-running process protocol with delayed files, errors, aborts and a process that dies, on
// one writer thread and on several. The work trees, the indexes (less stat data), git's view of
// the stat data, the stderr lines and, for process filters, the requests the filter received
// must all be the same.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, ROOT, TSGIT, git, rmrf, tmpDir, tsgit } from './helpers.js';
import { indexWithoutStat, snapshot, statDirty, WRITER_THREADS } from './checkout-oracle.js';

const made: string[] = [];
function scratch(prefix: string): string {
  const dir = tmpDir(prefix);
  made.push(dir);
  return dir;
}
afterEach(() => { for (const dir of made.splice(0)) rmrf(dir); });

const FILTER_PROCESS = `'${process.execPath}' '${path.join(ROOT, 'test', 'filter-process.cjs')}'`;

/** A repository on main with one commit of `files` (path -> content). */
function repoWith(files: Record<string, string>): string {
  const dir = scratch('tsgit-filter-src-');
  git(dir, ['init', '-q', '-b', 'main', '.']);
  const parts: Buffer[] = [Buffer.from('commit refs/heads/main\ncommitter C O Mitter <c@example.com> 1700000000 +0000\ndata 2\nm\n')];
  for (const [p, data] of Object.entries(files)) {
    const bytes = Buffer.from(data);
    parts.push(Buffer.from(`M 100644 inline ${p}\ndata ${bytes.length}\n`), bytes, Buffer.from('\n'));
  }
  git(dir, ['fast-import', '--quiet'], Buffer.concat([...parts, Buffer.from('\n')]));
  return dir;
}

interface Side { dir: string; status: number | null; stderr: string; log: string }

/**
 * Clones `src` twice without a checkout, sets `config` in both, and checks out with tsgit in one
 * and git in the other, each with its own $FILTER_LOG.
 */
function checkoutBoth(src: string, config: string[], extraEnv: NodeJS.ProcessEnv = {}): { ours: Side; theirs: Side } {
  const run = (tool: 'tsgit' | 'git'): Side => {
    const dir = scratch(`tsgit-filter-${tool}-`);
    git(dir, ['clone', '-q', '-n', src, '.']);
    for (const c of config) {
      const eq = c.indexOf('=');
      git(dir, ['config', c.slice(0, eq), c.slice(eq + 1)]);
    }
    const logFile = path.join(dir, '.git', 'filter-log');
    const env = { ...GIT_ENV, FILTER_LOG: logFile, FILTER_CWD: dir, ...extraEnv };
    const r = tool === 'tsgit' ? tsgit(dir, ['checkout', '-q'], undefined, env) : spawnSync('git', ['checkout', '-q'], { cwd: dir, env });
    return { dir, status: r.status, stderr: r.stderr.toString(), log: fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '' };
  };
  return { ours: run('tsgit'), theirs: run('git') };
}

/**
 * Same work tree, same index less stat data, stat data git trusts, `git status` clean (which
 * git itself cannot say for a required driver with no clean side: it dies on racy entries).
 */
function assertSameCheckout(ours: Side, theirs: Side, checkStatus = true): void {
  assert.equal(ours.status, 0, ours.stderr);
  assert.equal(theirs.status, 0, theirs.stderr);
  execFileSync('diff', ['-r', '--no-dereference', '-x', '.git', ours.dir, theirs.dir]);
  assert.deepEqual(snapshot(ours.dir), snapshot(theirs.dir));
  assert.deepEqual(indexWithoutStat(path.join(ours.dir, '.git', 'index')), indexWithoutStat(path.join(theirs.dir, '.git', 'index')));
  assert.equal(statDirty(ours.dir), '');
  if (checkStatus) assert.equal(git(ours.dir, ['status', '--porcelain']), '');
}

const read = (dir: string, p: string): string => fs.readFileSync(path.join(dir, p), 'utf8');

// A tree shaped like git/git's: po/ trees whose .gitattributes name a driver nobody configures.
const GETTEXT_TREE = {
  '.gitattributes': '* whitespace=!indent,trail,space\n*.[ch] whitespace=indent,trail,space diff=cpp\n*.sh text eol=lf\n',
  'Makefile': 'all:\n\t@echo ok\n',
  'po/.gitattributes': '*.po filter=gettext-no-location\n',
  'po/de.po': 'msgid "x"\nmsgstr "y"\n',
  'po/bg.po': 'msgid "a"\nmsgstr "b"\n',
  'gitk-git/po/.gitattributes': '*.po filter=gettext-no-location\n',
  'gitk-git/po/bg.po': 'msgid "c"\nmsgstr "d"\n',
  'run.sh': '#!/bin/sh\necho run\n',
};

test('a driver that is named but not configured passes content through, as in git (git/git\'s po/ trees)', () => {
  const src = repoWith(GETTEXT_TREE);
  // A process driver configured for everything (as `git lfs install` does) that no attribute
  // names is never started.
  for (const config of [[], WRITER_THREADS, ['filter.gettext-no-location.clean=cat'], [`filter.p.process=${FILTER_PROCESS}`]]) {
    const { ours, theirs } = checkoutBoth(src, config);
    assertSameCheckout(ours, theirs);
    assert.equal(ours.stderr, '');
    assert.equal(ours.log, '');
    assert.equal(read(ours.dir, 'po/bg.po'), GETTEXT_TREE['po/bg.po']);
  }
  // The clone command too, over file://.
  const dir = path.join(scratch('tsgit-filter-clone-'), 'c');
  const r = tsgit(path.dirname(dir), ['clone', '-q', `file://${src}`, dir]);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(git(dir, ['status', '--porcelain']), '');
  assert.equal(read(dir, 'gitk-git/po/bg.po'), GETTEXT_TREE['gitk-git/po/bg.po']);
});

test('filter.<driver>.required with nothing to run: passed through where git streams the file, fatal where git dies', () => {
  const src = repoWith({
    '.gitattributes': '*.r filter=req\n*.a filter=req text=auto\n',
    'plain.r': 'streamed as it is\n', 'z.txt': 'z\n',
  });
  // No clean, no process, no text=auto on *.r: git's checkout streams it, never asking the driver.
  const passed = checkoutBoth(src, ['filter.req.required=true']);
  assertSameCheckout(passed.ours, passed.theirs, false);

  const dying = repoWith({ '.gitattributes': '*.a filter=req text=auto\n*.c filter=cl\n', 'a.a': 'a\n', 'b.c': 'b\n', 'c.txt': 'c\n' });
  for (const config of [['filter.req.required=true'], ['filter.cl.clean=cat', 'filter.cl.required=true']]) {
    const { ours, theirs } = checkoutBoth(dying, config);
    assert.equal(theirs.status, 128);
    assert.equal(ours.status, 128);
    assert.equal(ours.stderr, theirs.stderr);
    assert.match(ours.stderr, /^fatal: (a\.a: smudge filter req|b\.c: smudge filter cl) failed\n$/);
    // tsgit knows before it writes anything; git has written the files before that path.
    assert.deepEqual(fs.readdirSync(ours.dir), ['.git']);
    assert.ok(!fs.existsSync(path.join(ours.dir, '.git', 'index')));
  }
});

// Paths that need quoting for the shell, one not UTF-8, in a subdirectory.
const SMUDGE_TREE: Record<string, string> = {
  '.gitattributes': '*.x filter=tag\n',
  'a.x': 'first\n',
  "sp ace's !bang.x": 'second\n',
  'sub/dir/deep.x': 'third\n',
  '"caf\\351.x"': 'latin-1 name\n',
  'plain.txt': 'not filtered\n',
};

test('filter.<driver>.smudge runs through the shell as git runs it: %f quoted, in the work tree, git\'s environment', () => {
  const src = repoWith(SMUDGE_TREE);
  const smudge = 'printf "smudged %s\\n" %f; echo "prefix=${GIT_PREFIX-unset} gitdir=${GIT_DIR-unset}"; test -d .git && echo at-top; cat';
  const clean = 'sed -e "/^smudged /d" -e "/^prefix=/d" -e "/^at-top$/d"';
  for (const config of [[], WRITER_THREADS]) {
    const { ours, theirs } = checkoutBoth(src, [`filter.tag.smudge=${smudge}`, `filter.tag.clean=${clean}`, ...config]);
    assertSameCheckout(ours, theirs);
    assert.equal(ours.stderr, '');
    assert.equal(read(ours.dir, "sp ace's !bang.x"), "smudged sp ace's !bang.x\nprefix= gitdir=unset\nat-top\nsecond\n");
    assert.equal(read(ours.dir, 'sub/dir/deep.x'), 'smudged sub/dir/deep.x\nprefix= gitdir=unset\nat-top\nthird\n');
    assert.equal(read(ours.dir, 'plain.txt'), 'not filtered\n');
    // The name that is not UTF-8 reached the shell as the same bytes.
    assert.equal(fs.readFileSync(Buffer.from(`${ours.dir}/caf\xe9.x`, 'latin1'), 'latin1'), "smudged caf\xe9.x\nprefix= gitdir=unset\nat-top\nlatin-1 name\n");
  }
  // Under clone, GIT_DIR names the new repository, as git clone sets it.
  const dir = path.join(scratch('tsgit-filter-clone-'), 'c');
  const home = scratch('tsgit-filter-home-');
  const config = path.join(home, 'gitconfig');
  fs.writeFileSync(config, '[filter "tag"]\n\tsmudge = "test \\"$GIT_DIR\\" = \\"$PWD/.git\\" && echo gitdir-ok; cat"\n');
  const r = tsgit(home, ['clone', '-q', src, dir], undefined, { ...GIT_ENV, GIT_CONFIG_GLOBAL: config });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(read(dir, 'a.x'), 'gitdir-ok\nfirst\n');
});

test('a failing smudge command: the blob unfiltered with git\'s errors, or fatal when required', () => {
  const src = repoWith(SMUDGE_TREE);
  for (const [smudge, lines] of [
    ['echo partial; exit 3', 2], // output before failing is dropped
    ['kill -TERM $$', 3],        // "died of signal 15"
    ['nonexistent-filter', 3],   // executed directly (no shell metacharacters), and not found
  ] as const) {
    const { ours, theirs } = checkoutBoth(src, [`filter.tag.smudge=${smudge}`]);
    assertSameCheckout(ours, theirs);
    assert.equal(ours.stderr, theirs.stderr);
    assert.equal(ours.stderr.split('\n').length - 1, 4 * lines, ours.stderr);
    assert.equal(read(ours.dir, 'a.x'), 'first\n');
  }
  const { ours, theirs } = checkoutBoth(src, ['filter.tag.smudge=exit 3', 'filter.tag.required=true']);
  assert.equal(theirs.status, 128);
  assert.equal(ours.status, 128);
  assert.equal(ours.stderr, theirs.stderr);
  assert.match(ours.stderr, /fatal: a\.x: smudge filter tag failed\n$/);
  assert.ok(!fs.existsSync(path.join(ours.dir, '.git', 'index')));
});

const PROCESS_TREE: Record<string, string> = {
  '.gitattributes': '*.f filter=p\n',
  'a.f': 'content of a\n',
  'b-delay.f': 'content of b\n',
  'c-delay.f': 'content of c\n',
  'd-error.f': 'content of d\n',
  'f.f': 'content of f\n',
  'g-delay.f': 'content of g\n',
  'plain.txt': 'not filtered\n',
  'sub/h-delay.f': 'content of h\n',
  'sub/i.f': 'content of i\n',
};

test('filter.<driver>.process: the protocol as git speaks it, with delayed files, per-file errors, on one thread or several', () => {
  const src = repoWith(PROCESS_TREE);
  for (const config of [[], WRITER_THREADS]) {
    const { ours, theirs } = checkoutBoth(src, [`filter.p.process=${FILTER_PROCESS}`, ...config]);
    assertSameCheckout(ours, theirs);
    assert.equal(ours.log, theirs.log);
    assert.equal(ours.stderr, '');
    // One process: one handshake, in the work tree; the delayed files asked for again, empty.
    assert.equal(ours.log.match(/^start /gm)?.length, 1, ours.log);
    assert.match(ours.log, /^start git-filter-client version=2 \| capability=clean capability=smudge capability=delay \| cwd=worktree$/m);
    assert.match(ours.log, /^list_available_blobs -> b-delay\.f c-delay\.f\nsmudge b-delay\.f 0 treeish blob\n/m);
    assert.equal(read(ours.dir, 'sub/h-delay.f'), 'smudged\ncontent of h\n');
    assert.equal(read(ours.dir, 'd-error.f'), 'content of d\n');
  }
  // Without the delay capability nothing is delayed; without smudge nothing is smudged.
  for (const caps of ['clean,smudge', 'clean']) {
    const { ours, theirs } = checkoutBoth(src, [`filter.p.process=${FILTER_PROCESS}`], { FILTER_CAPS: caps });
    assert.equal(ours.status, 0, ours.stderr);
    assert.equal(ours.log, theirs.log);
    assert.doesNotMatch(ours.log, /can-delay|list_available_blobs/);
    execFileSync('diff', ['-r', '-x', '.git', ours.dir, theirs.dir]);
  }
});

test('filter process: answers far larger than a pipe holds, to requests larger than one, do not deadlock the pipelined checkout', () => {
  // Each request carries a 24 KiB blob and each answer is 12 copies of it (288 KiB). Were tsgit
  // to write request after request while the filter sits blocked writing an answer nobody reads,
  // both would wait for good after three requests (the pipe holds 64 KiB): requests written
  // ahead of unread answers must stay within what any pipe holds.
  const files: Record<string, string> = { '.gitattributes': '*.f filter=p\n' };
  for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, '0')}.f`] = `${i} `.repeat(12288).slice(0, 24 * 1024);
  const src = repoWith(files);
  const run = (tool: 'tsgit' | 'git'): { dir: string; status: number | null; stderr: string } => {
    const dir = scratch(`tsgit-filter-big-${tool}-`);
    git(dir, ['clone', '-q', '-n', src, '.']);
    git(dir, ['config', 'filter.p.process', FILTER_PROCESS]);
    const env = { ...GIT_ENV, FILTER_GROW: '12' };
    const argv = tool === 'tsgit' ? [process.execPath, [TSGIT, 'checkout', '-q']] as const : ['git', ['checkout', '-q']] as const;
    // A deadlock fails here, after the timeout, rather than hanging the suite.
    const r = spawnSync(argv[0], [...argv[1]], { cwd: dir, env, timeout: 60_000 });
    return { dir, status: r.status, stderr: `${r.stderr}${r.error ? ` (${r.error.message})` : ''}` };
  };
  const ours = run('tsgit'), theirs = run('git');
  assert.equal(theirs.status, 0, theirs.stderr);
  assert.equal(ours.status, 0, ours.stderr);
  execFileSync('diff', ['-r', '-x', '.git', ours.dir, theirs.dir]);
  assert.equal(fs.statSync(path.join(ours.dir, 'f07.f')).size, 8 + 12 * 24 * 1024);
});

test('filter process: abort stops smudging for the rest of the checkout, a dead process is restarted, required errors are fatal', () => {
  const aborting = repoWith({ '.gitattributes': '*.f filter=p\n', 'a.f': 'a\n', 'b-abort.f': 'b\n', 'c.f': 'c\n', 'd.f': 'd\n' });
  let both = checkoutBoth(aborting, [`filter.p.process=${FILTER_PROCESS}`]);
  assertSameCheckout(both.ours, both.theirs);
  // git asks nothing more after the abort; tsgit has sent the next requests before the answer
  // came (see filter/filters.ts) and takes no notice of their answers.
  const upToAbort = (log: string): string => log.slice(0, log.indexOf('smudge b-abort.f'));
  assert.equal(upToAbort(both.ours.log), upToAbort(both.theirs.log));
  assert.doesNotMatch(both.theirs.log, /smudge c\.f/);
  assert.equal(read(both.ours.dir, 'c.f'), 'c\n');
  assert.equal(read(both.ours.dir, 'a.f'), 'smudged\na\n');

  const crashing = repoWith({ '.gitattributes': '*.f filter=p\n', 'a.f': 'a\n', 'b-crash.f': 'b\n', 'c.f': 'c\n' });
  both = checkoutBoth(crashing, [`filter.p.process=${FILTER_PROCESS}`]);
  assertSameCheckout(both.ours, both.theirs);
  assert.equal(both.ours.log, both.theirs.log);
  assert.equal(both.ours.log.match(/^start /gm)?.length, 2, both.ours.log);
  assert.equal(both.ours.stderr, both.theirs.stderr);
  assert.match(both.ours.stderr, /^error: external filter '.*filter-process\.cjs'' failed\n$/);
  assert.equal(read(both.ours.dir, 'c.f'), 'smudged\nc\n');

  const src = repoWith(PROCESS_TREE);
  both = checkoutBoth(src, [`filter.p.process=${FILTER_PROCESS}`, 'filter.p.required=true']);
  assert.equal(both.theirs.status, 128);
  assert.equal(both.ours.status, 128);
  assert.equal(both.ours.stderr, 'fatal: d-error.f: smudge filter p failed\n');
  assert.equal(both.ours.stderr, both.theirs.stderr);
  const upToError = (log: string): string => log.slice(0, log.indexOf('smudge d-error.f'));
  assert.equal(upToError(both.ours.log), upToError(both.theirs.log));
  assert.ok(!fs.existsSync(path.join(both.ours.dir, '.git', 'index')));
});

test('filter process: a capability git does not know is fatal; a process that cannot start leaves files unfiltered', () => {
  const src = repoWith(PROCESS_TREE);
  const home = scratch('tsgit-filter-env-');
  const env = { ...GIT_ENV, FILTER_EXTRA_CAP: 'teleport' };
  const wt = path.join(home, 'wt');
  git(home, ['clone', '-q', '-n', src, wt]);
  git(wt, ['config', 'filter.p.process', FILTER_PROCESS]);
  const r = tsgit(wt, ['checkout', '-q'], undefined, env);
  assert.equal(r.status, 128);
  assert.match(r.stderr.toString(), /^fatal: subprocess '.*filter-process\.cjs'' requested unsupported capability 'teleport'\n$/);

  const { ours, theirs } = checkoutBoth(src, ['filter.p.process=nonexistent-filter-process']);
  assertSameCheckout(ours, theirs);
  assert.equal(ours.stderr, theirs.stderr);
  assert.match(ours.stderr, /^error: cannot run nonexistent-filter-process: No such file or directory\nerror: cannot fork to run subprocess 'nonexistent-filter-process'\n/);
});

test('filter process: a delayed file the filter never delivers fails the clone as git\'s does', () => {
  const src = repoWith({ '.gitattributes': '*.f filter=p\n', 'a.f': 'a\n', 'b-delay.f': 'b\n', 'c-never-delay.f': 'c\n' });
  const home = scratch('tsgit-filter-home-');
  const config = path.join(home, 'gitconfig');
  fs.writeFileSync(config, `[filter "p"]\n\tprocess = ${FILTER_PROCESS.replace(/'/g, '\\"')}\n`);
  const env = { ...GIT_ENV, GIT_CONFIG_GLOBAL: config };
  const run = (tool: 'tsgit' | 'git'): { status: number | null; stderr: string } => {
    const r = tool === 'tsgit'
      ? tsgit(home, ['clone', '-q', src, `${tool}-clone`], undefined, env)
      : spawnSync('git', ['clone', '-q', src, `${tool}-clone`], { cwd: home, env });
    return { status: r.status, stderr: r.stderr.toString() };
  };
  const ours = run('tsgit');
  const theirs = run('git');
  assert.equal(theirs.status, 128);
  assert.equal(ours.status, 128);
  assert.equal(ours.stderr, theirs.stderr);
  assert.match(ours.stderr, /^error: 'c-never-delay\.f' was not filtered properly\nfatal: unable to checkout working tree\nwarning: Clone succeeded, but checkout failed\./);
  assert.equal(read(path.join(home, 'tsgit-clone'), 'b-delay.f'), 'smudged\nb\n');
});

/** Commits on top of main in `dir`: `files` changed, `remove` deleted. */
function commit(dir: string, files: Record<string, string>, remove: string[] = []): void {
  const parts = [`commit refs/heads/next\ncommitter C O Mitter <c@example.com> 1700000100 +0000\ndata 2\nn\nfrom refs/heads/main\n`];
  for (const [p, data] of Object.entries(files)) parts.push(`M 100644 inline ${p}\ndata ${Buffer.byteLength(data)}\n${data}\n`);
  for (const p of remove) parts.push(`D ${p}\n`);
  git(dir, ['fast-import', '--quiet'], parts.join('') + '\n');
}

test('switching commits compares filtered files through their clean side and writes through the smudge side', () => {
  const src = repoWith(PROCESS_TREE);
  commit(src, { 'a.f': 'new a\n', 'b-delay.f': 'new b\n' }, ['f.f']);
  const config = [`filter.p.process=${FILTER_PROCESS}`];
  const { ours, theirs } = checkoutBoth(src, config);
  assertSameCheckout(ours, theirs);
  for (const side of [ours, theirs]) {
    // Every file's stat no longer matches its entry (new mtimes), so both must read the files
    // back; the index is made older than none of them, so none is merely racy.
    const past = new Date(Date.now() - 3600_000);
    for (const p of ['a.f', 'b-delay.f', 'f.f', 'c-delay.f']) fs.utimesSync(path.join(side.dir, p), past, past);
    const future = new Date(Date.now() + 3600_000);
    fs.utimesSync(path.join(side.dir, '.git', 'index'), future, future);
    fs.rmSync(path.join(side.dir, '.git', 'filter-log'));
  }
  const env = (side: Side) => ({ ...GIT_ENV, FILTER_LOG: path.join(side.dir, '.git', 'filter-log'), FILTER_CWD: side.dir });
  const r = tsgit(ours.dir, ['checkout', '-q', 'next'], undefined, env(ours));
  assert.equal(r.status, 0, r.stderr.toString());
  git(theirs.dir, ['checkout', '-q', 'next'], undefined, env(theirs));
  assert.deepEqual(snapshot(ours.dir), snapshot(theirs.dir));
  const log = fs.readFileSync(path.join(ours.dir, '.git', 'filter-log'), 'utf8');
  // git refreshes the whole index first, so it also cleans the unchanged c-delay.f; tsgit reads
  // back only the files the switch touches. Both smudge the same.
  const theirLog = fs.readFileSync(path.join(theirs.dir, '.git', 'filter-log'), 'utf8');
  const smudges = (text: string): string => text.split('\n').filter(l => !l.startsWith('clean ')).join('\n');
  assert.equal(smudges(log), smudges(theirLog));
  for (const line of log.split('\n').filter(l => l.startsWith('clean '))) assert.ok(theirLog.includes(`${line}\n`), line);
  assert.match(log, /^clean a\.f 21$/m);
  assert.match(log, /^clean f\.f 21$/m);
  assert.match(log, /^smudge b-delay\.f 6 can-delay ref=refs\/remotes\/origin\/next treeish blob$/m);
  assert.equal(read(ours.dir, 'a.f'), 'smudged\nnew a\n');
  assert.equal(git(ours.dir, ['status', '--porcelain'], undefined, env(ours)), '');

  // A real change to a filtered file is a local change, through the clean side too.
  fs.writeFileSync(path.join(ours.dir, 'a.f'), 'smudged\nedited\n');
  const refused = tsgit(ours.dir, ['checkout', '-q', 'main'], undefined, env(ours));
  assert.equal(refused.status, 1);
  assert.match(refused.stderr.toString(), /would be overwritten by checkout:\n\ta\.f\n/);
});
