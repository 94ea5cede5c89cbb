// clone's options against git:
//   --[no-]reject-shallow (and clone.rejectShallow, from the global config, `git -c` or the clone's
//   own -c), over a path and file://, protocol v0 and v2: a shallow source is refused with git's
//   message and nothing is left behind;
//   --separate-git-dir: the repository elsewhere, a gitfile in the work tree;
//   -s/--shared: a local source's objects borrowed through alternates;
//   those tsgit takes without a difference to make: -v, -l/--[no-]local, --[no-]hardlinks and
//   --template= (a template directory is refused: tsgit copies none).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf, TSGIT, tmpDir } from './helpers.js';

describe('clone options', () => {
  let work: string;
  let src: string;
  let shallow: string;
  let n = 0;
  before(() => {
    work = tmpDir();
    src = path.join(work, 'src');
    git(work, ['init', '-q', '-b', 'main', src]);
    for (const m of ['one', 'two', 'three']) git(src, ['commit', '-q', '--allow-empty', '-m', m]);
    shallow = path.join(work, 'shallow');
    git(work, ['clone', '-q', '--depth', '1', `file://${src}`, shallow]);
  });
  after(() => rmrf(work));

  /** Clones with both tools; returns git's outcome once tsgit's matches it. */
  const compare = (args: string[]): { status: number | null; stderr: string; dirs: string[] } => {
    const dirs = [`${n}-tsgit`, `${n}-git`].map((d) => path.join(work, d));
    n++;
    const runs = dirs.map((dir, k) => {
      const cmd = k === 0 ? [process.execPath, TSGIT] : ['git'];
      const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'clone', ...args, dir], { cwd: work, env: GIT_ENV, encoding: 'utf8' });
      return { status: r.status, stderr: r.stderr.replaceAll(path.basename(dir), '<dir>'), exists: fs.existsSync(dir) };
    });
    const [ours, theirs] = runs as [typeof runs[0], typeof runs[0]];
    assert.equal(ours.status, theirs.status, ours.stderr);
    assert.equal(ours.exists, theirs.exists);
    // git says "done." after copying a local repository's files; tsgit's clone of one is a fetch.
    assert.equal(ours.stderr, theirs.stderr.replace(/^done\.\n/m, ''));
    return { status: theirs.status, stderr: theirs.stderr, dirs };
  };

  for (const version of ['0', '2']) {
    it(`refuses a shallow source when asked, over a path and file:// (protocol v${version})`, () => {
      const v = ['-c', `protocol.version=${version}`];
      for (const source of [shallow, `file://${shallow}`]) {
        const r = compare([...v, '--reject-shallow', source]);
        assert.equal(r.status, 128);
        assert.match(r.stderr, /fatal: source repository is shallow, reject to clone\./);
        assert.equal(compare([...v, '-c', 'clone.rejectShallow=true', source]).status, 128);
        assert.equal(compare([...v, '--no-reject-shallow', '-c', 'clone.rejectShallow=true', source]).status, 0);
        assert.equal(compare([...v, '--reject-shallow', `file://${src}`]).status, 0);
      }
    });
  }

  it('--separate-git-dir: the repository elsewhere, a gitfile in the work tree, as git lays them out', () => {
    const dirs = ['tsgit', 'git'].map((tool) => {
      const wt = path.join(work, `sep-${tool}`), gitDir = path.join(work, `sep-${tool}.git`);
      const cmd = tool === 'tsgit' ? [process.execPath, TSGIT] : ['git'];
      const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'clone', '-q', `--separate-git-dir=${gitDir}`, src, wt], { cwd: work, env: GIT_ENV, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(fs.readFileSync(path.join(wt, '.git'), 'utf8'), `gitdir: ${gitDir}\n`);
      assert.equal(git(wt, ['status', '--porcelain']), '');
      return { wt, gitDir };
    });
    const [ours, theirs] = dirs as [typeof dirs[0], typeof dirs[0]];
    assert.equal(git(ours.wt, ['config', '--local', '-l']), git(theirs.wt, ['config', '--local', '-l']));
    assert.equal(git(ours.wt, ['for-each-ref']), git(theirs.wt, ['for-each-ref']));
    assert.equal(compare(['--bare', '--separate-git-dir', path.join(work, 'nowhere'), src]).status, 128);
  });

  it('--shared borrows a local source\'s objects through alternates, as git does (not over file://, --no-local or --dissociate)', () => {
    const alternates = (dir: string): string => {
      const file = path.join(dir, '.git', 'objects', 'info', 'alternates');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    };
    for (const args of [['-s', src], ['--shared', src], ['-s', '--no-local', src], ['-s', `file://${src}`], ['-s', '--dissociate', src]]) {
      const r = compare(args);
      assert.equal(r.status, 0);
      const [ours, theirs] = r.dirs as [string, string];
      assert.equal(alternates(ours), alternates(theirs), args.join(' '));
      assert.equal(git(ours, ['for-each-ref']), git(theirs, ['for-each-ref']));
      assert.equal(git(ours, ['status', '--porcelain']), '');
      git(ours, ['fsck', '--no-dangling']);
    }
    assert.equal(alternates(compare(['--shared', src]).dirs[0]!), `${path.join(src, '.git', 'objects')}\n`);
  });

  it('takes -v, --[no-]local, --[no-]hardlinks and an empty --template; refuses a template directory', () => {
    const r = compare(['-v', '--no-local', '--no-hardlinks', '-l', '--template=', src]);
    assert.equal(r.status, 0);
    const [ours, theirs] = r.dirs as [string, string];
    assert.equal(git(ours, ['for-each-ref']), git(theirs, ['for-each-ref']));
    assert.equal(git(ours, ['status', '--porcelain']), '');
    const t = spawnSync(process.execPath, [TSGIT, 'clone', `--template=${work}`, src, path.join(work, 'templated')], { cwd: work, env: GIT_ENV, encoding: 'utf8' });
    assert.equal(t.status, 128);
    assert.match(t.stderr, /copies no templates/);
    assert.equal(fs.existsSync(path.join(work, 'templated')), false);
  });

  it('records a relative source path as git does: after the working directory, not normalised', () => {
    // From a directory reached through a symlink, with $PWD naming the link: git keeps that name.
    fs.mkdirSync(path.join(work, 'deep'));
    fs.symlinkSync(path.join(work, 'deep'), path.join(work, 'link'));
    const cwd = path.join(work, 'link');
    for (const source of ['../src', '../src/', './../src//', '../src/.git']) {
      const urls = ['tsgit', 'git'].map((tool) => {
        const dir = `${tool}-${n++}`;
        const cmd = tool === 'tsgit' ? [process.execPath, TSGIT] : ['git'];
        const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'clone', '-q', source, dir], { cwd, env: { ...GIT_ENV, PWD: cwd }, encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        return git(path.join(cwd, dir), ['config', 'remote.origin.url']);
      });
      assert.equal(urls[0], urls[1]);
      assert.equal(urls[1], `${cwd}/${source}\n`);
    }
  });
});
