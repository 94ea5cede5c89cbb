// `push <remote> <refspec>...` as git 2.39's builtin/push.c reads its command line (set_refspecs,
// refspec_append_mapped): a branch named alone goes where remote.<name>.push, or under
// push.default=upstream its upstream, sends it; `tag <name>`; --delete's names; sources checked
// before the remote is contacted (check_push_refs); a source without a destination that is no
// ref (an object id) dies; a revision without a destination is no refspec. Which pattern maps a
// ref (git's get_ref_match): --tags' refs/tags/* stands before the command line's refspecs; the
// refspecs naming one ref come before any pattern. A remote's push URLs are each pushed to, on
// after one fails. Each case runs in two copies of a clone and its bare remote (oracle-copies.ts),
// git in one, tsgit in the other: output, exit status, and every file after, the remote's refs
// among them.
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { compareInCopies, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-push-refspec-mapping-'));
after(() => rmrf(root));

// up.git has main and dev; work, its clone, has a commit more on each, dev tracking origin/dev,
// and the annotated tag v1 (on up.git too) and the light tag v2 (only here).
const template = path.join(root, 'template');
const source = path.join(root, 'source');
git(root, ['init', '-q', '-b', 'main', source]);
git(source, ['commit', '-q', '--allow-empty', '-m', 'one']);
git(source, ['tag', '-a', '-m', 'v1', 'v1']);
git(source, ['checkout', '-qb', 'dev']);
git(source, ['commit', '-q', '--allow-empty', '-m', 'two']);
git(source, ['checkout', '-q', 'main']);
git(root, ['clone', '-q', '--bare', source, path.join(template, 'up.git')]);
const work = path.join(template, 'work');
git(template, ['clone', '-q', 'up.git', 'work']);
git(work, ['config', 'remote.origin.url', '../up.git']);
git(work, ['commit', '-q', '--allow-empty', '-m', 'main ahead']);
git(work, ['checkout', '-qb', 'dev', 'origin/dev']);
git(work, ['commit', '-q', '--allow-empty', '-m', 'dev ahead']);
git(work, ['checkout', '-q', 'main']);
git(work, ['tag', 'v2']);
const mainId = git(work, ['rev-parse', 'main']).trim();

function compare(c: CopiesCase): void {
  compareInCopies(template, root, c, 'work');
}

test('remote.<name>.push maps a branch named alone: its first refspec that names it, unless a ^refspec excludes it', () => {
  compare({
    name: 'push-config',
    prepare: [
      ['config', 'remote.origin.push', 'refs/heads/main:refs/heads/other'],
      ['config', '--add', 'remote.origin.push', 'refs/heads/dev:refs/heads/elsewhere'],
      ['config', '--add', 'remote.origin.push', '^refs/heads/dev'],
      ['config', '--add', 'remote.origin.push', 'refs/heads/main:refs/heads/second'],
    ],
    steps: [
      ['push', 'origin', 'main'], ['push', 'origin', 'refs/heads/main'], ['push', 'origin', 'dev'],
      // A colon, HEAD (no branch's name) and a tag are pushed as written.
      ['push', 'origin', 'main:refs/heads/named'], ['push', 'origin', 'HEAD'], ['push', 'origin', 'v2'],
      ['push', '--porcelain', 'origin', 'heads/main'],
    ],
  });
});

test('a pattern in remote.<name>.push maps a branch, forced when it is; it holds no more than the command line asks', () => {
  compare({
    name: 'push-pattern',
    prepare: [
      ['config', 'remote.origin.push', '+refs/heads/*:refs/heads/up/*'],
      // up/main diverges from main: only the refspec's + lets main replace it.
      ['push', '-q', 'origin', 'dev:refs/heads/up/main'],
    ],
    steps: [['push', 'origin', 'main'], ['push', 'origin', 'dev', 'v2'], ['push', '-u', 'origin', 'main'], ['config', '--get-regexp', '^branch\\.']],
  });
});

test('push.default=upstream (or tracking) maps a branch to its one upstream, of any remote; simple and current do not', () => {
  compare({
    name: 'upstream',
    prepare: [
      ['config', 'push.default', 'upstream'], ['config', 'branch.dev.merge', 'refs/heads/devup'],
      ['config', 'branch.main.remote', 'somewhere-else'], ['config', 'branch.main.merge', 'refs/heads/trunk'],
    ],
    steps: [
      ['push', 'origin', 'dev'], ['push', 'origin', 'main'], ['push', 'origin', 'HEAD'],
      ['config', 'push.default', 'tracking'], ['config', 'branch.dev.merge', 'refs/heads/devup2'], ['push', 'origin', 'refs/heads/dev'],
      ['config', 'push.default', 'simple'], ['config', 'branch.dev.merge', 'refs/heads/devup3'], ['push', 'origin', 'dev'],
      ['config', 'push.default', 'current'], ['config', 'branch.main.merge', 'refs/heads/trunk2'], ['push', 'origin', 'main'],
      // Two upstreams: neither is taken.
      ['config', 'push.default', 'upstream'], ['config', '--add', 'branch.main.merge', 'refs/heads/trunk3'], ['push', 'origin', 'main'],
    ],
  });
});

test('remote.<name>.push is asked before the upstream', () => {
  compare({
    name: 'both',
    prepare: [['config', 'push.default', 'upstream'], ['config', 'branch.dev.merge', 'refs/heads/devup'], ['config', 'remote.origin.push', 'refs/heads/main:refs/heads/m']],
    steps: [['push', 'origin', 'dev', 'main']],
  });
});

test('tag <name> is refs/tags/<name>, with --delete its deletion; tag alone, and --delete of a refspec or nothing, die', () => {
  compare({
    name: 'tag',
    steps: [
      ['push', 'origin', 'tag', 'v2', 'main'], ['push', 'origin', 'tag', 'nope'], ['push', 'origin', 'tag'], ['push', 'nowhere', 'tag'],
      ['push', '-d', 'origin', 'tag', 'v2'], ['push', '-d', 'origin', 'tag'], ['push', '-d', 'origin', 'main:main'], ['push', '-d', 'origin', ''],
      ['push', '-d', 'origin', 'dev', 'tag', 'v1'],
    ],
  });
});

test('sources are checked before the remote is contacted: every bad one is named and nothing is pushed', () => {
  compare({
    name: 'sources',
    prepare: [['tag', 'dev'], ['config', 'remote.two.url', '../up.git'], ['config', 'remote.two.pushurl', '../missing.git'], ['config', '--add', 'remote.two.pushurl', '../up.git']],
    steps: [
      ['push', '../missing.git', 'nope'], ['push', 'origin', 'nope', 'main', 'nope2:refs/heads/x', ':refs/heads/dev'],
      ['push', 'origin', 'dev'], ['push', 'two', 'nope'], ['push', '-v', 'origin', 'main~5:refs/heads/x'],
      ['push', 'origin', 'main~1:refs/heads/old'],
    ],
  });
});

// git dies in these after the remote has answered; its receive-pack then says the push hung up,
// to the stderr both share: a receive-pack whose stderr goes nowhere lets the rest compare.
test('a source without a destination that is no ref dies: an object id, a symbolic ref to other than a branch', () => {
  compare({
    name: 'no-ref',
    prepare: [
      ['config', 'remote.origin.receivepack', 'git-receive-pack 2>/dev/null'],
      ['symbolic-ref', 'refs/heads/to-tag', 'refs/tags/v2'], ['symbolic-ref', 'refs/heads/to-dev', 'refs/heads/dev'],
    ],
    steps: [
      ['push', 'origin', mainId], ['push', 'origin', mainId.slice(0, 10)], ['push', 'origin', ':gone', mainId],
      ['push', 'origin', 'to-tag'], ['push', 'origin', 'to-dev'], ['push', 'origin', `${mainId}:refs/heads/byid`],
    ],
  });
});

test('a revision without a destination is an invalid refspec, said as git says it', () => {
  compare({ name: 'revision', steps: [['push', 'origin', 'HEAD~0'], ['push', 'origin', 'main^'], ['fetch', 'origin', 'HEAD~0:refs/x']] });
});

// Here the remote's v1 is annotated and this v1 names main: only a forced push replaces it.
test('--tags puts refs/tags/* before the command line: a tag goes where it sends it, not forced by a later +pattern', () => {
  compare({
    name: 'tags-first',
    prepare: [['tag', '-f', 'v1', 'main']],
    steps: [['push', '--porcelain', '--tags', 'origin', '+refs/tags/*'], ['push', '--tags', 'origin', 'refs/tags/*:refs/x/*']],
  });
});

test('refspecs naming one ref go before patterns; each ref takes the first pattern that maps it, in name order; --prune with :', () => {
  compare({
    name: 'pattern-order',
    prepare: [['update-ref', 'refs/zz/two', 'main~1'], ['branch', 'fresh'], ['push', '-q', 'origin', 'main:refs/heads/gone']],
    steps: [
      ['push', '--porcelain', 'origin', 'refs/zz/*', 'refs/heads/*'], ['push', 'origin', 'refs/heads/*:refs/a/*', 'refs/heads/*:refs/b/*'],
      ['push', 'origin', 'refs/heads/*', '+dev:refs/heads/main'], ['push', 'origin', 'main', 'main'], ['push', '--prune', 'origin', ':'],
    ],
  });
});

// `two` pushes to up2.git, then up.git; this hook refuses every push to up2.git.
const hooks = path.join(root, 'hooks');
fs.mkdirSync(hooks);
fs.writeFileSync(path.join(hooks, 'pre-push'), '#!/bin/sh\ncase "$2" in *up2.git) echo "no push to $2" >&2; exit 1;; esac\n', { mode: 0o755 });

test('a push to several URLs goes on after one fails, and fails at the end', () => {
  compare({
    name: 'urls',
    prepare: [
      ['init', '-q', '--bare', '../up2.git'], ['config', 'remote.two.url', '../up.git'],
      ['config', 'remote.two.pushurl', '../up2.git'], ['config', '--add', 'remote.two.pushurl', '../up.git'],
    ],
    // up2.git starts empty: it has no dev to delete.
    steps: [['push', 'two', ':dev', 'main'], ['-c', `core.hooksPath=${hooks}`, 'push', 'two', 'v2']],
  });
});

test('--follow-tags: the annotated tags what the remote will have reaches, the refs it keeps too, after the rest in name order', () => {
  compare({
    name: 'follow-tags',
    prepare: [
      // c-two is on up.git's dev, which no push here moves; l-lone on a branch of its own.
      ['tag', '-a', '-m', 'a', 'a-dev', 'dev'], ['tag', '-a', '-m', 'c', 'c-two', 'origin/dev'], ['tag', '-a', '-m', 'z', 'z-main', 'main'],
      ['tag', '-a', '-m', 't', 't-of-z', 'z-main'], ['checkout', '-q', '--orphan', 'lone'], ['commit', '-q', '--allow-empty', '-m', 'lone'],
      ['tag', '-a', '-m', 'l', 'l-lone'], ['checkout', '-q', 'main'], ['config', 'remote.origin.receivepack', 'git-receive-pack'],
    ],
    // One push, each receive-pack a process: main named, lone by a pattern, then the tags.
    steps: [['push', '--follow-tags', '--porcelain', 'origin', 'refs/heads/l*:refs/heads/copy/l*', 'main']],
  });
});

test('a destination named twice: to a remote without refs, sent twice, as git does; once it has one, refused before sending', () => {
  compare({
    name: 'twice',
    prepare: [['init', '-q', '--bare', '../empty.git'], ['config', 'remote.empty.url', '../empty.git'], ['config', 'remote.empty.receivepack', 'git-receive-pack']],
    steps: [['push', 'empty', 'main', 'main'], ['push', 'empty', 'main:refs/heads/x', 'dev:x']],
  });
});
