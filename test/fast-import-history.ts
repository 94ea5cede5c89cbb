// History for bitmap tests, written through `git fast-import`: each commit gets its own committer
// date (a minute apart), so date-ordered walks and git's bitmap commit selection are deterministic.
import { git } from './helpers.js';

export class FastImport {
  private lines: string[] = [];
  private mark = 0;

  constructor(readonly dir: string, public time = 1700000000) {}

  /** Seconds for the next commit made outside fast-import, after every commit made here. */
  tick(): number {
    return this.time += 60;
  }

  /** Queues a commit; parents are marks of this import or ids. Returns its mark. */
  commit(ref: string, parents: readonly (number | string)[], files: readonly [string, string][]): number {
    const m = ++this.mark;
    const data = (s: string) => [`data ${Buffer.byteLength(s)}`, s];
    const from = (p: number | string) => typeof p === 'number' ? `:${p}` : p;
    this.lines.push(`commit ${ref}`, `mark :${m}`, `committer C O Mitter <c@example.com> ${this.tick()} +0000`, ...data(`commit ${m}\n`));
    if (parents[0] !== undefined) this.lines.push(`from ${from(parents[0])}`);
    for (const p of parents.slice(1)) this.lines.push(`merge ${from(p)}`);
    for (const [p, body] of files) this.lines.push(`M 100644 inline ${p}`, ...data(body));
    return m;
  }

  /** Runs fast-import on what is queued (`args` go before `fast-import`'s own, e.g. `-c` options). */
  flush(gitArgs: readonly string[] = [], importArgs: readonly string[] = []): void {
    this.lines.push('');
    git(this.dir, [...gitArgs, 'fast-import', '--quiet', ...importArgs], this.lines.join('\n'));
    this.lines = [];
  }
}

/**
 * `n` main-line commits touching nested directories, with blobs shared between paths, and every
 * `mergeEvery`-th a three-commit branch `side<i>` merged back. `after(i)` runs after commit i.
 */
export function mainLine(fi: FastImport, n: number, mergeEvery: number, after: (i: number) => void = () => undefined): void {
  let main = 0;
  for (let i = 1; i <= n; i++) {
    if (i % mergeEvery === 0) {
      let side = main;
      for (let k = 0; k < 3; k++) side = fi.commit(`refs/heads/side${i}`, [side], [[`side/s${i}/f${k}.txt`, `side ${i} ${k}\n`]]);
      main = fi.commit('refs/heads/main', [main, side], [[`merged/m${i}.txt`, 'merge\n']]);
    } else {
      main = fi.commit('refs/heads/main', main ? [main] : [], [
        [`d${i % 5}/e${i % 3}/f${i % 7}.txt`, `contents ${i}\n`.repeat(1 + (i % 4))],
        ['same/copy.txt', `shared ${i % 10}\n`],
        [`alias${i % 2}.txt`, `shared ${i % 10}\n`],
      ]);
    }
    after(i);
  }
}
