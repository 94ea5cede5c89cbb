// A serve worker's first request used to pay for what no open() does: compiling the serve path
// (pkt-lines, negotiation, the bitmap walk, planning and writing a pack), resolving the XOR chains
// of the bitmaps near the tips, filling the delta-base cache and reading the pack's pages. It cost
// the first client 150-500 ms of counting where later ones took 10-30. So a worker opening a
// repository answers a request of its own first, as a fetching client would send it: ls-refs, then
// a fetch of HEAD from its first-parent ancestor REHEARSAL_DEPTH commits back, without `done`, so
// that negotiation runs too. The answer is thrown away.
import { fromHex, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { OBJ_COMMIT } from '../object/type.js';
import { DELIM_PKT, FLUSH_PKT, pktLine } from '../protocol/index.js';
import type { Repository } from '../repository/repository.js';
import type { RefSnapshot } from './refs.js';
import type { ResponseSink } from './session.js';
import { uploadPack } from './upload-pack.js';

/**
 * How far behind HEAD the rehearsing client is: deep enough that the pack regions and bitmaps an
 * everyday fetch touches are read (16 left the first 100-commit fetch at 130 ms of counting, 128
 * brought it to 35-75 ms on the large corpus), at about 400 ms once per worker and repository.
 */
const REHEARSAL_DEPTH = 128;

/**
 * Serves one made-up fetch of HEAD on `repo`, its answer going to `sink` (by default nowhere).
 * Returns false, serving nothing, when HEAD is not a commit with `depth` first parents below it.
 */
export async function rehearse(repo: Repository, refs: RefSnapshot, depth = REHEARSAL_DEPTH,
  sink: ResponseSink = () => undefined): Promise<boolean> {
  const head = refs.head?.oid;
  if (head === undefined) return false;
  const have = firstParentAncestor(repo, fromHex(head)!, depth);
  if (!have) return false;
  const request = Buffer.concat([
    pktLine('command=ls-refs\n'), DELIM_PKT, pktLine('symrefs\n'), pktLine('peel\n'),
    pktLine('ref-prefix HEAD\n'), pktLine('ref-prefix refs/heads/\n'), pktLine('ref-prefix refs/tags/\n'), FLUSH_PKT,
    pktLine('command=fetch\n'), DELIM_PKT, pktLine('thin-pack\n'), pktLine('no-progress\n'), pktLine('include-tag\n'),
    pktLine('ofs-delta\n'), pktLine(`want ${head}\n`), pktLine(`have ${have}\n`), FLUSH_PKT,
  ]);
  await uploadPack(repo, {
    input: (async function* () { yield request; })(),
    output: sink,
    protocol: 'version=2',
    source: 'rehearsal',
  });
  return true;
}

/** The hex id `depth` first parents below `oid`, or null when the history is shorter or not commits. */
function firstParentAncestor(repo: Repository, oid: Uint8Array, depth: number): string | null {
  let at = oid;
  for (let i = 0; i < depth; i++) {
    const o = repo.odb.read(at, 0);
    if (!o || o.type !== OBJ_COMMIT) return null;
    const parent = parseCommit(o.data, () => `rehearsal commit ${toHex(at)}`).parents[0];
    if (!parent) return null;
    at = parent;
  }
  return toHex(at);
}
