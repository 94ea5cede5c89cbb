// The shared option walker (cli/parse-options.ts) against git's parse-options, which
// `git rev-parse --parseopt` runs on a spec and prints back as the options it read, in order, then
// the arguments: bundled switches ("-rt"), a short option's value at the end of a bundle ("-rn5")
// or in the next word, "--name=value", "--", and the errors (exit 129). Then one command, init,
// with bundles, against git's init.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../src/core/errors.js';
import { parseOptions } from '../src/cli/parse-options.js';
import { GIT_ENV, rmrf, seededRandom, tmpDir, tsgit } from './helpers.js';

/** The options of the spec below: the short name each prints as (git's parseopt dump), and whether it takes a value. */
const OPTIONS: Record<string, { as: string; valued: boolean }> = {
  '-r': { as: '-r', valued: false }, '-t': { as: '-t', valued: false },
  '-q': { as: '-q', valued: false }, '--quiet': { as: '-q', valued: false },
  '-n': { as: '-n', valued: true },
  '-b': { as: '-b', valued: true }, '--branch': { as: '-b', valued: true },
  '--long-only': { as: '--long-only', valued: false },
};
const SPEC = 'test [<options>] [<args>]\n--\nr recurse\nt trees\nq,quiet quiet\nn= count\nb,branch= branch\nlong-only only long\n';

/** git's reading of `args` as `set -- <options> -- <arguments>`, or null for an error. */
function gits(args: string[]): string | null {
  const r = spawnSync('git', ['rev-parse', '--parseopt', '--', ...args], { input: SPEC, env: GIT_ENV });
  if (r.status === 129) return null;
  assert.equal(r.status, 0, r.stderr.toString());
  return r.stdout.toString().trimEnd();
}

/** parseOptions' reading of `args`, printed as git's parseopt prints its own. */
function ours(args: string[]): string | null {
  const words = ['set', '--'];
  try {
    const rest = parseOptions(args, (name, value, inline) => {
      const o = OPTIONS[name];
      if (!o || (!o.valued && inline !== undefined)) return false;
      words.push(o.as);
      if (o.valued) words.push(`'${value()}'`);
      return true;
    });
    words.push('--', ...rest.map((a) => `'${a}'`));
  } catch (e) {
    if (e instanceof UsageError) return null;
    throw e;
  }
  return words.join(' ');
}

test('bundled switches and short values are read as git reads them', () => {
  const lines: string[][] = [
    ['-rt', 'HEAD'], ['-rtn5', 'x'], ['-rn', '5', 'x'], ['-nr'], ['-n', '-r'], ['-rx'], ['-xr'], ['-qb', 'main'], ['-bq'],
    ['-qbmain'], ['-b=x'], ['-rn'], ['-b', '--', 'a'], ['a', '-rt', 'b'], ['--', '-rt'], ['-r', '--', '-n5'], ['-'],
    ['--branch=dev', '-q'], ['--branch', 'dev'], ['--quiet=1'], ['--long-only', '-tr'], ['-rr'], ['-full'],
  ];
  // And generated ones: words of switches, values, long options and arguments, bundled or not.
  const random = seededRandom(24);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const letters = ['r', 't', 'q', 'n', 'b', 'x', '5', '='];
  const words = ['--quiet', '--branch', '--branch=b', '--long-only', '--bogus', '--', '-', 'a', 'b', '-r', '-n', '-b'];
  for (let k = 0; k < 300; k++) {
    const line: string[] = [];
    for (let w = 1 + Math.floor(random() * 4); w > 0; w--) {
      line.push(random() < 0.5 ? pick(words) : `-${Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(letters)).join('')}`);
    }
    lines.push(line);
  }
  let bundled = 0;
  for (const args of lines) {
    const expected = gits(args);
    assert.equal(ours(args), expected, args.join(' '));
    if (expected !== null && args.some((a) => /^-[^-]./.test(a))) bundled++;
  }
  assert.ok(bundled > 50, `only ${bundled} command lines with a bundle were read without error`);
});

test('bundles: false reads "-ab" as one word, for commands whose git counterpart does', () => {
  const seen: string[] = [];
  const read = (args: string[]) => parseOptions(args, (name) => {
    seen.push(name);
    return name === '-a' || name === '-b';
  }, { bundles: false });
  assert.throws(() => read(['-ab']), UsageError);
  assert.deepEqual(seen, ['-ab']);
  assert.deepEqual(read(['-a', 'x', '-b']), ['x']);
});

test('init reads bundled switches as git init does: -qb <branch>, -qb<branch>, -bq', () => {
  const root = fs.realpathSync(tmpDir('tsgit-init-bundles-'));
  try {
    const lines = [['-qb', 'trunk'], ['-qbtrunk'], ['-bq'], ['--bare', '-qbdev'], ['-qq'], ['-q', '-b=x'], ['-qx'], ['-qb'], ['-xq']];
    lines.forEach((args, i) => {
      const run = (who: 'git' | 'tsgit') => {
        const dir = path.join(root, who, String(i));
        fs.mkdirSync(dir, { recursive: true });
        const r = who === 'git' ? spawnSync('git', ['init', ...args, 'repo'], { cwd: dir, env: GIT_ENV }) : tsgit(dir, ['init', ...args, 'repo']);
        const gitDir = [path.join(dir, 'repo', '.git'), path.join(dir, 'repo')].find((d) => fs.existsSync(path.join(d, 'HEAD')));
        return {
          status: r.status,
          stdout: r.stdout.toString().replaceAll(dir, '<dir>'),
          stderr: r.status === 0 ? r.stderr.toString() : '',
          head: gitDir && `${path.relative(dir, gitDir)}: ${fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8')}`,
        };
      };
      assert.deepEqual(run('tsgit'), run('git'), `init ${args.join(' ')}`);
    });
  } finally {
    rmrf(root);
  }
});
