// v0/v1 negotiation (upload-pack's get_common_commits) against git upload-pack: the same scripted
// have rounds, over a connection and as one stateless request, in each multi_ack mode, must get
// the same ACK and NAK lines. The rounds hold what a fetch-pack client sends: haves the server
// lacks (more than git's client sends in vain, 256, before it gives up), commits on no branch the
// client wants, commits already known through an earlier have's parents, the same commit twice, a
// tree. The access log's count is one per have line, and maxHaves bounds a round, not the
// connection: rounds under it that add up past it are served.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Repository } from '../src/repository/repository.js';
import { DEFAULT_SERVICE_LIMITS } from '../src/server/limits.js';
import { uploadPack } from '../src/server/upload-pack.js';
import { FastImport } from './fast-import-history.js';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';

let dir: string;
let main: string[];
let side: string[];

before(() => {
  dir = tmpDir('tsgit-negotiation-');
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const fi = new FastImport(dir);
  let m = 0;
  for (let i = 0; i < 300; i++) m = fi.commit('refs/heads/main', m ? [m] : [], [['f.txt', `${i}\n`]]);
  fi.flush();
  let s = 0;
  for (let i = 0; i < 20; i++) s = fi.commit('refs/heads/side', [s ? s : 'refs/heads/main~150'], [['s.txt', `${i}\n`]]);
  fi.flush();
  main = git(dir, ['rev-list', 'main']).trim().split('\n');
  side = git(dir, ['rev-list', 'main..side']).trim().split('\n');
});

after(() => rmrf(dir));

function pkt(s: string): Buffer {
  return Buffer.concat([Buffer.from((s.length + 4).toString(16).padStart(4, '0')), Buffer.from(s)]);
}

const FLUSH = Buffer.from('0000');
const unknown = (n: number, from = 0) => Array.from({ length: n }, (_, i) => (from + i + 1).toString(16).padStart(40, 'f'));

/** The want of main with `caps`, then rounds of have lines, each flushed, then done. */
function request(caps: string, rounds: string[][]): Buffer {
  const parts = [pkt(`want ${main[0]}${caps ? ` ${caps}` : ''}\n`), FLUSH];
  for (const round of rounds) parts.push(...round.map(h => pkt(`have ${h}\n`)), FLUSH);
  parts.push(pkt('done\n'));
  return Buffer.concat(parts);
}

/** The ACK and NAK lines of an answer, after the advertisement (when there is one), up to the pack. */
function acks(out: Buffer, advertised: boolean): string[] {
  const lines: string[] = [];
  let inAdvert = advertised;
  for (let p = 0; p + 4 <= out.length;) {
    const len = parseInt(out.toString('latin1', p, p + 4), 16);
    if (len === 0) {
      inAdvert = false;
      p += 4;
      continue;
    }
    const text = out.toString('latin1', p + 4, p + len);
    p += len;
    if (inAdvert) continue;
    if (!/^(ACK|NAK)/.test(text)) break;
    lines.push(text.trimEnd());
  }
  return lines;
}

function gitAnswer(input: Buffer, stateless: boolean): Buffer {
  const r = spawnSync('git', ['upload-pack', ...stateless ? ['--stateless-rpc'] : [], dir], { input, env: GIT_ENV, maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr.toString());
  return r.stdout;
}

async function ourAnswer(input: Buffer, stateless: boolean, limits = DEFAULT_SERVICE_LIMITS) {
  const repo = new Repository(dir, null);
  const chunks: Buffer[] = [];
  const counts: Record<string, number> = {};
  try {
    await uploadPack(repo, {
      input: (async function* () { yield input; })(), output: c => { chunks.push(Buffer.from(c)); }, statelessRpc: stateless, limits, counts,
    });
  } finally {
    repo.close();
  }
  return { out: Buffer.concat(chunks), counts };
}

function scripts(): { name: string; rounds: string[][] }[] {
  const tree = git(dir, ['rev-parse', 'main~10^{tree}']).trim();
  return [
    { name: 'nothing in common, past the in-vain window', rounds: [unknown(16), unknown(32, 16), unknown(300, 48)] },
    {
      name: 'side commits, known ones again, a tree, then the want\'s ancestors',
      rounds: [
        [...unknown(4), side[0]!, side[0]!, side[1]!, ...unknown(3, 4), tree],
        [side[5]!, main[200]!, main[201]!, main[200]!, ...unknown(10, 8)],
        [main[40]!, ...unknown(5, 20), main[41]!],
      ],
    },
    { name: 'one have, common at once', rounds: [[main[1]!]] },
  ];
}

const MODES = ['', 'multi_ack', 'multi_ack_detailed', 'multi_ack_detailed no-done'];

test('ACKs and NAKs as git upload-pack gives them, over a connection and stateless', async () => {
  for (const { name, rounds } of scripts()) {
    for (const caps of MODES) {
      const input = request(`${caps} side-band-64k ofs-delta`.trim(), rounds);
      for (const stateless of [false, true]) {
        const expected = acks(gitAnswer(input, stateless), !stateless);
        const ours = await ourAnswer(input, stateless);
        assert.deepEqual(acks(ours.out, !stateless), expected, `${name}, caps '${caps}', stateless ${stateless}`);
        assert.ok(expected.length > 0, `${name}: git answered`);
        // Each have line read counted once. A stateless request is its first round; with no-done
        // the server reads no further than the round its "ready" answers (one NAK a round).
        const read = stateless ? 1 : caps.includes('no-done') && expected.some(l => l.endsWith(' ready'))
          ? expected.filter(l => l === 'NAK').length : rounds.length;
        const sent = rounds.slice(0, read).flat().length;
        assert.equal(ours.counts.haves, sent, `${name}, caps '${caps}', stateless ${stateless}: haves counted`);
      }
    }
  }
});

test('maxHaves bounds one round: rounds under it are served whatever their sum, a round over it is refused', async () => {
  const limits = { ...DEFAULT_SERVICE_LIMITS, maxHaves: 40 };
  const rounds = [unknown(40), unknown(40, 40), [main[3]!, ...unknown(39, 80)]];
  const input = request('multi_ack_detailed side-band-64k', rounds);
  const served = await ourAnswer(input, false, limits);
  assert.deepEqual(acks(served.out, true), acks(gitAnswer(input, false), true));
  assert.equal(served.counts.haves, 120);
  assert.ok(served.out.includes('PACK'), 'a pack follows');
  const over = request('multi_ack_detailed side-band-64k', [unknown(20), unknown(41, 20)]);
  await assert.rejects(ourAnswer(over, false, limits), /more than 40 have lines in one round/);
});
