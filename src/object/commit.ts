// The parts of a commit the walk needs: tree, parents, committer time. The header is read the way
// git's parse_commit_buffer reads it, so a commit git accepts is accepted here.
import { CorruptError } from '../core/errors.js';
import { hexBytesToOid, OID_BYTES, OID_HEX } from '../core/oid.js';

export interface CommitHeader {
  tree: Uint8Array;
  parents: Uint8Array[];
  /** Committer timestamp in seconds; 0 when missing or unparsable, as git does. */
  time: number;
}

const TREE = Buffer.from('tree ');
const PARENT = Buffer.from('parent ');
const COMMITTER = Buffer.from('committer ');

function startsWith(buf: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > buf.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

function lineEnd(buf: Uint8Array, at: number): number {
  const i = buf.indexOf(0x0a, at);
  return i < 0 ? buf.length : i;
}

export function parseCommit(buf: Uint8Array, label: () => string): CommitHeader {
  const scan = SCAN;
  scan.scan(buf, label);
  const parents: Uint8Array[] = [];
  for (let i = 0; i < scan.parentCount; i++) parents.push(scan.parents.slice(i * OID_BYTES, (i + 1) * OID_BYTES));
  return { tree: scan.tree.slice(), parents, time: scan.time };
}

/**
 * parseCommit into storage that is reused from one commit to the next: a walk over a whole
 * history parses every commit once, and the five objects parseCommit makes for each (the ids,
 * their list, the header) were most of its garbage.
 */
export class CommitScan {
  readonly tree = new Uint8Array(OID_BYTES);
  /** parentCount ids, one after the other. */
  parents = new Uint8Array(2 * OID_BYTES);
  parentCount = 0;
  /** Committer timestamp in seconds; 0 when missing or unparsable, as git does. */
  time = 0;

  scan(buf: Uint8Array, label: () => string): void {
    let p = 0;
    if (!startsWith(buf, p, TREE) || buf[p + 5 + OID_HEX] !== 0x0a) {
      throw new CorruptError('object', `${label()}: bad tree line in commit`);
    }
    if (!hexBytesToOid(buf, p + 5, this.tree)) throw new CorruptError('object', `${label()}: bad tree id in commit`);
    p += 5 + OID_HEX + 1;
    let n = 0;
    while (startsWith(buf, p, PARENT)) {
      if ((n + 1) * OID_BYTES > this.parents.length) {
        const bigger = new Uint8Array(this.parents.length * 2);
        bigger.set(this.parents);
        this.parents = bigger;
      }
      if (buf[p + 7 + OID_HEX] !== 0x0a || !hexBytesToOid(buf, p + 7, this.parents, n * OID_BYTES)) {
        throw new CorruptError('object', `${label()}: bad parent line in commit`);
      }
      n++;
      p += 7 + OID_HEX + 1;
    }
    this.parentCount = n;
    let time = 0;
    // The committer line follows author; scan header lines until the blank line.
    while (p < buf.length && buf[p] !== 0x0a) {
      const end = lineEnd(buf, p);
      if (startsWith(buf, p, COMMITTER)) {
        time = parseIdentTime(buf, p, end);
        break;
      }
      p = end + 1;
    }
    this.time = time;
  }
}

/** The timestamp after the last '>' of an ident line, as git's parse_commit_date reads it. */
export function parseIdentTime(buf: Uint8Array, start: number, end: number): number {
  let gt = -1;
  for (let i = end - 1; i >= start; i--) if (buf[i] === 0x3e) { gt = i; break; }
  if (gt < 0) return 0;
  let i = gt + 1;
  while (i < end && buf[i] === 0x20) i++;
  let t = 0, digits = 0;
  while (i < end && buf[i]! >= 0x30 && buf[i]! <= 0x39) { t = t * 10 + (buf[i]! - 0x30); i++; digits++; }
  return digits ? t : 0;
}

/** parseCommit's scanner, reused from call to call (a scan copies nothing out until it is done). */
const SCAN = new CommitScan();
