// The progress meter prints git's progress.c formats exactly: percentages, counts, throughput
// (total and a moving-average rate, humanised as strbuf_humanise_bytes does), the final ", done.",
// padding that erases a longer previous line, and the split after the title on narrow terminals;
// a delayed meter stays silent for two seconds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humaniseBytes, progressText, ProgressText } from '../src/core/progress.js';

function meter(title: string, total: number, columns = 80) {
  const out: string[] = [];
  let ns = 0n;
  const p = new ProgressText(title, total, (s) => out.push(s), { now: () => ns, columns });
  return { p, out, at: (seconds: number) => { ns = BigInt(Math.round(seconds * 1e9)); } };
}

describe('progress', () => {
  it('humanises sizes as git does', () => {
    assert.equal(humaniseBytes(0), '0 bytes');
    assert.equal(humaniseBytes(1), '1 byte');
    assert.equal(humaniseBytes(1024), '1024 bytes');
    assert.equal(humaniseBytes(1025), '1.00 KiB');
    assert.equal(humaniseBytes(1536), '1.50 KiB');
    assert.equal(humaniseBytes(3 * 2 ** 20), '3.00 MiB');
    // git truncates GiB (no rounding term, unlike MiB and KiB).
    assert.equal(humaniseBytes(2 ** 30 + 2 ** 29), '1.49 GiB');
    assert.equal(humaniseBytes(40 * 2 ** 20, true), '40.00 MiB/s');
    assert.equal(humaniseBytes(512, true), '512 bytes/s');
  });

  it('redraws when the percentage changes, and ends with ", done."', () => {
    const { p, out } = meter('Resolving deltas', 4);
    for (let i = 0; i <= 4; i++) p.update(i);
    p.update(4);
    p.stop();
    assert.deepEqual(out, [
      'Resolving deltas:   0% (0/4)\r',
      'Resolving deltas:  25% (1/4)\r',
      'Resolving deltas:  50% (2/4)\r',
      'Resolving deltas:  75% (3/4)\r',
      'Resolving deltas: 100% (4/4)\r',
      'Resolving deltas: 100% (4/4), done.\n',
    ]);
  });

  it('shows the throughput as a moving average, and the overall rate at the end', () => {
    const { p, out, at } = meter('Receiving objects', 100);
    p.update(10, 1000);
    at(0.6);
    p.update(20, 1000 + 25 * 2 ** 20);
    at(1.0);
    p.stop();
    assert.deepEqual(out, [
      'Receiving objects:  10% (10/100)\r',
      'Receiving objects:  20% (20/100), 25.00 MiB | 41.69 MiB/s\r',
      'Receiving objects:  20% (20/100), 25.00 MiB | 25.03 MiB/s, done.\n',
    ]);
  });

  it('without a total, shows the count once a second', () => {
    const { p, out, at } = meter('Counting objects', 0);
    p.update(5);
    at(1.2);
    p.update(7);
    p.stop();
    assert.deepEqual(out, ['Counting objects: 7\r', 'Counting objects: 7, done.\n']);
  });

  it('pads a shorter line to erase the longer one before it', () => {
    const { p, out, at } = meter('Receiving objects', 100);
    p.update(1, 0);
    at(0.6);
    p.update(2, 8 * 2 ** 20);
    at(1.2);
    p.update(3, 8 * 2 ** 20);
    assert.deepEqual(out, [
      'Receiving objects:   1% (1/100)\r',
      'Receiving objects:   2% (2/100), 8.00 MiB | 13.34 MiB/s\r',
      'Receiving objects:   3% (3/100), 8.00 MiB | 6.67 MiB/s \r',
    ]);
  });

  it('splits the line after the title when the terminal is too narrow', () => {
    const { p, out } = meter('Resolving deltas', 10, 25);
    p.update(1);
    p.update(2);
    assert.deepEqual(out, ['Resolving deltas:        \n   10% (1/10)\r', '   20% (2/10)\r']);
  });

  it('a delayed meter shows nothing for two seconds, then what an undelayed one would', () => {
    const out: string[] = [];
    let ns = 0n;
    const progress = progressText((s) => out.push(s), { now: () => ns });
    const quick = progress('Updating files', 10, { delayed: true });
    quick.update(5);
    ns = 1_900_000_000n;
    quick.update(10);
    quick.stop();
    assert.deepEqual(out, []);
    const slow = progress('Updating files', 10, { delayed: true });
    ns = 4_000_000_000n;
    slow.update(6);
    slow.update(10);
    slow.stop();
    assert.deepEqual(out, ['Updating files:  60% (6/10)\r', 'Updating files: 100% (10/10)\r', 'Updating files: 100% (10/10), done.\n']);
  });
});
