// The upstream of a branch `checkout` makes, and of one `push -u` pushes, against git 2.39
// (oracle-copies.ts: output, exit status, config and reflogs compared): branch.autoSetupMerge
// (false, true, always, simple, inherit) or -t/--track[=direct|inherit]/--no-track choosing what
// is tracked, branch.autoSetupRebase (never, local, remote, always) whether it is rebased onto
// (any other value refused), git's messages, warnings and fatal errors along the way, and what
// checkout then says of the branch against its upstream.
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { clonedTemplate, compareInCopies, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-checkout-track-'));
after(() => rmrf(root));

// up.git: main, side and tag v1 at one commit; work, its clone, with a branch lt following its main
// (branch.lt.remote "."), and many following origin's main and side.
const { template, work } = clonedTemplate(root, { source: [['tag', 'v1']] });
git(work, ['branch', 'lt']);
git(work, ['config', 'branch.lt.remote', '.']);
git(work, ['config', 'branch.lt.merge', 'refs/heads/main']);
git(work, ['branch', 'many']);
git(work, ['config', 'branch.many.remote', 'origin']);
git(work, ['config', 'branch.many.merge', 'refs/heads/main']);
git(work, ['config', '--add', 'branch.many.merge', 'refs/heads/side']);

function compare(c: CopiesCase): void {
  compareInCopies(template, root, c, 'work');
}

/** Configuration of one variable, unset for undefined. */
function setting(key: string, value: string | undefined): string[][] {
  return value === undefined ? [] : [['config', key, value]];
}

describe('checkout -b and the upstream it sets', () => {
  const steps = [
    ['checkout', '-b', 'a', 'origin/main'], ['checkout', '-b', 'b', 'main'], ['checkout', '-b', 'c', 'lt'],
    ['checkout', '-B', 'd', 'origin/side'], ['checkout', '-q', '-b', 'e', 'origin/main'], ['checkout', 'side'],
    ['checkout', '-t', '-b', 'f', 'main'], ['checkout', '--track=inherit', '-b', 'g', 'lt'], ['checkout', '--track', '-b', 'h', 'remotes/origin/main'],
    ['checkout', '--track=direct', '-b', 'i', 'origin'], ['checkout', '-b', 'j'], ['checkout', '-b', 'k', 'v1'],
  ];
  // Every autoSetupMerge value, each with autoSetupRebase values that tell its local and remote
  // upstreams apart, and every autoSetupRebase value at least once (all 30 pairs took 44 s).
  const pairs: [string | undefined, (string | undefined)[]][] = [
    [undefined, [undefined, 'local']], ['false', ['remote']], ['true', ['always', 'never']],
    ['always', ['local']], ['simple', ['remote']], ['inherit', ['always']],
  ];
  for (const [merge, rebases] of pairs) {
    it(`follows branch.autoSetupMerge=${merge ?? '(unset)'} and branch.autoSetupRebase as git does`, () => {
      for (const rebase of rebases) {
        compare({
          name: `merge ${merge} rebase ${rebase}`,
          prepare: [...setting('branch.autoSetupMerge', merge), ...setting('branch.autoSetupRebase', rebase)],
          steps,
        });
      }
    });
  }

  it('names the branch after the remote-tracking branch for --track and --no-track alone', () => {
    compare({ name: 'track', steps: [['checkout', '--track', 'origin/side'], ['checkout', '-q', 'main'], ['checkout', '--track', 'main'], ['checkout', '--track']] });
    compare({ name: 'no-track', steps: [['checkout', '--no-track', 'refs/remotes/origin/side'], ['checkout', '-t', 'origin']] });
    compare({ name: 'bad mode', steps: [['checkout', '--track=sideways', '-b', 'x', 'main']] });
  });

  it("gives git's warnings and fatal errors", () => {
    // git judges the start point once the work tree is switched, and leaves it so.
    compare({ name: 'a tag', prepare: [['config', 'branch.autoSetupRebase', 'always']], steps: [['checkout', '-t', '-b', 'x', 'v1']] });
    compare({ name: 'a commit', steps: [['checkout', '--track', '-b', 'y', 'origin/main~0']] });
    compare({
      name: 'own upstream', prepare: [['config', 'branch.autoSetupMerge', 'always'], ['config', '--remove-section', 'branch.main']],
      steps: [['checkout', '-B', 'main', 'main']],
    });
    compare({ name: 'inherit several', steps: [['checkout', '--track=inherit', '-b', 'x', 'many']] });
    compare({
      name: 'inherit several, rebasing', prepare: [['config', 'branch.autoSetupRebase', 'remote']],
      steps: [['checkout', '--track=inherit', '-b', 'x', 'many']],
    });
    compare({
      name: 'inherit nothing', prepare: [['config', 'branch.autoSetupMerge', 'inherit'], ['branch', 'plain']],
      steps: [['checkout', '-b', 'x', 'plain'], ['checkout', '-b', 'y', 'origin/side']],
    });
    const twin = [['remote', 'add', 'twin', '../up.git'], ['config', 'remote.twin.fetch', '+refs/heads/*:refs/remotes/origin/*']];
    compare({ name: 'two remotes fetch into one place', prepare: twin, steps: [['checkout', '-b', 'x', 'origin/side']] });
    compare({ name: 'two remotes, no tracking', prepare: twin, steps: [['-c', 'branch.autoSetupMerge=false', 'checkout', '-b', 'y', 'origin/side']] });
    compare({
      name: 'no remote fetches there', prepare: [['update-ref', 'refs/remotes/gone/x', 'HEAD']],
      steps: [['checkout', '-b', 'x', 'gone/x'], ['checkout', '-q', 'main'], ['checkout', '-t', '-b', 'y', 'gone/x']],
    });
  });
});

describe('how a branch checked out stands against its upstream', () => {
  // main two commits ahead of origin/main, lt (following main) two behind, one a commit ahead of
  // origin/main, fwd and t3 a commit behind origin/side, div two ahead of it and one behind, and
  // gone following a branch origin never had.
  const scene = [
    ['branch', '-t', 'one', 'origin/main'], ['branch', '-t', 'fwd', 'origin/side'], ['branch', '-t', 't3', 'origin/side'],
    ['branch', 'gone'], ['config', 'branch.gone.remote', 'origin'], ['config', 'branch.gone.merge', 'refs/heads/gone'],
    ['checkout', '-q', '-b', 'div', '-t', 'origin/side'], ['commit', '-q', '--allow-empty', '-m', 'div 1'],
    ['commit', '-q', '--allow-empty', '-m', 'div 2'], ['checkout', '-q', 'main'],
    ['commit', '-q', '--allow-empty', '-m', 'two'], ['update-ref', 'refs/heads/one', 'HEAD'],
    ['update-ref', 'refs/remotes/origin/side', 'HEAD'], ['commit', '-q', '--allow-empty', '-m', 'three'],
  ];

  it("says it on stdout after the switch, as git's checkout does, and not with -q", () => {
    compare({
      name: 'tracking', prepare: scene,
      steps: [
        // The branch checked out already: HEAD's reflog gains the move all the same.
        ['checkout', 'main'], ['checkout', '-q', 'main'], ['checkout', 'lt'], ['checkout', 'one'], ['checkout', 'fwd'],
        ['checkout', 'div'], ['checkout', 'gone'], ['checkout'], ['checkout', 'HEAD'], ['checkout', '-f', 'gone'],
        ['-c', 'advice.statusHints=false', 'checkout', 'div'], ['-c', 'advice.statusHints=false', 'checkout', 'gone'],
        ['-c', 'advice.statusHints=false', 'checkout', 'main'],
        // git reports on the upstream a branch had before the checkout set one up: a new branch
        // (above) gets no report, one -B resets is reported on against its old upstream.
        ['checkout', '-B', 't3', 'origin/main'], ['checkout', '-B', 'lt', 'main'],
      ],
    });
  });
});

describe('a detached HEAD', () => {
  const commit = (message: string): string[] => ['commit', '-q', '--allow-empty', '-m', message];
  /** HEAD detached at main with `n` commits on it that no ref reaches. */
  const lost = (n: number): string[][] => [['checkout', '-q', 'main~0'], ...Array.from({ length: n }, (_, i) => commit(`lost ${i + 1}`))];

  it("gets git's advice on leaving a branch, and where it was on leaving it", () => {
    compare({
      name: 'detaching', prepare: [commit('two'), commit('three\n  spread \nover lines\n\nbody')],
      steps: [
        ['checkout', 'HEAD~1'], ['checkout', 'main~2'], ['checkout', 'main'], ['checkout', '-q', 'main~1'], ['checkout', 'main'],
        ['-c', 'advice.detachedHead=false', 'checkout', 'origin/main'], ['checkout', 'v1'], ['checkout', '-b', 'x', 'main'],
        ['checkout', '-q', 'v1'], ['checkout', 'v1'], ['checkout', '-q', 'main'],
      ],
    });
  });

  it('--detach: HEAD detached at the branch or commit named, or at HEAD, without the advice; -b and paths refused', () => {
    compare({
      name: 'detach', prepare: [commit('two')],
      steps: [
        ['checkout', '--detach'], ['checkout', 'main'], ['checkout', '--detach', 'main'], ['checkout', '--detach', 'HEAD~1'],
        ['checkout', '-q', '--detach', 'main'], ['checkout', '--detach', '-b', 'x'], ['checkout', '--detach', '-b', 'x', 'nosuch'],
        ['checkout', '--detach', 'nosuch'], ['checkout', '--detach', 'main', 'extra'], ['checkout', 'main'],
      ],
    });
  });

  it('`-` and `@{-<n>}` switch back to the branch (or the detached commit) checked out before', () => {
    // Before any checkout there is none: git then takes `-` for a path.
    compare({ name: 'no prior', steps: [['checkout', '-'], ['checkout', '@{-1}'], ['checkout', '-q', '-b', 'x', '-']] });
    compare({
      name: 'prior', prepare: [commit('two')],
      steps: [
        ['checkout', 'side'], ['checkout', '-'], ['checkout', '@{-1}'], ['checkout', '@{-2}'], ['checkout', '-q', '--detach', 'main~1'],
        ['checkout', 'main'], ['checkout', '-'], ['checkout', '-q', 'side'], ['checkout', '-b', 'x', '-'], ['checkout', '@{-3}'],
        ['checkout', '-', '--', 'nosuch'], ['checkout', '--', '-'], ['checkout', '--detach', '-'],
      ],
    });
  });

  it('says which commits it leaves behind, as git does', () => {
    compare({ name: 'one lost', prepare: lost(1), steps: [['-c', 'advice.detachedHead=false', 'checkout', '-b', 'y', 'main']] });
    compare({ name: 'five lost', prepare: lost(5), steps: [['checkout', 'main']] });
    compare({ name: 'six lost', prepare: lost(6), steps: [['checkout', 'v1']] });
  });
});

describe('a malformed branch.autoSetupRebase', () => {
  it('is refused before checkout does anything, as git refuses it', () => {
    // Every value is judged, not only the one that counts.
    compare({
      name: 'malformed autoSetupRebase', prepare: [['config', 'branch.autoSetupRebase', 'sometimes']],
      steps: [['checkout', 'main'], ['checkout', '-b', 'x', 'origin/side'], ['-c', 'branch.autoSetupRebase=always', 'checkout', '-q', 'main']],
    });
    compare({
      name: 'malformed autoSetupRebase on the command line',
      steps: [['-c', 'branch.autoSetupRebase=Always', 'checkout', 'main'], ['-c', 'branch.autoSetupRebase', 'checkout', 'side']],
    });
  });
});

describe('push -u and branch.autoSetupRebase', () => {
  it('sets branch.<name>.rebase and says so, as git does', () => {
    for (const rebase of [undefined, 'never', 'local', 'remote', 'always']) {
      compare({
        name: `push rebase ${rebase}`, prepare: [...setting('branch.autoSetupRebase', rebase), ['branch', 'x']],
        steps: [['push', '-u', 'origin', 'x', 'main:refs/heads/y'], ['push', '-u', '../up.git', 'lt:refs/heads/z']],
      });
    }
  });

  it('dies on a malformed one before it connects, as git does', () => {
    // Judged as push reads its configuration, whatever the options, and every value, not only the last.
    compare({
      name: 'push malformed autoSetupRebase', prepare: [['config', 'branch.autoSetupRebase', 'Local']],
      steps: [['push', '-u', 'origin', 'main:refs/heads/y'], ['push', 'nowhere'], ['-c', 'branch.autoSetupRebase=local', 'push', '--bogus']],
    });
  });
});
