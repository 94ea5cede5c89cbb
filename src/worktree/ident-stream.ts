// git's streaming ident filter (convert.c ident_filter_fn), which checkout uses instead of the
// in-memory ident_to_worktree whenever nothing else needs the whole blob in memory (no
// working-tree-encoding, no filter command, no text=auto guessing). The two disagree on edge cases
// ("$$Id$", "$Id:\tx y$", "$Idx$Id: a b $"), so the same state machine is replayed here, over the
// whole blob at once: git's output does not depend on how the stream is cut.
import { toHex } from '../core/oid.js';

/** "$Id" with its terminating NUL: git compares against sizeof(head) bytes, NUL included. */
const HEAD = Buffer.from('$Id\0', 'latin1');
const SKIPPING = -1;
const DOLLAR = 0x24, COLON = 0x3a, LF = 0x0a;

/** git's isspace: space, tab, LF and CR only. */
const isGitSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** git's is_foreign_ident, on the pending bytes read as a C string: "$Id: " then a space not before '$'. */
function isForeignIdent(left: number[]): boolean {
  const end = left.indexOf(0);
  const n = end < 0 ? left.length : end;
  const prefix = '$Id: ';
  if (n < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (left[k] !== prefix.charCodeAt(k)) return false;
  for (let k = prefix.length; k < n; k++) {
    if (isGitSpace(left[k]!) && (k + 1 >= n ? 0 : left[k + 1]) !== DOLLAR) return true;
  }
  return false;
}

/** The work-tree bytes git's streaming ident filter makes of `src` (blob `oid`), or null when unchanged. */
export function identToWorkTreeStreaming(src: Uint8Array, oid: Uint8Array): Buffer | null {
  if (Buffer.from(src.buffer, src.byteOffset, src.byteLength).indexOf('$Id') < 0) return null;
  const ident = Buffer.from(`: ${toHex(oid)} $`, 'latin1');
  const out: Buffer[] = [];
  let left: number[] = [];
  let state = 0;
  let runStart = 0; // bytes since runStart pass through untouched (state 0, nothing pending)
  const flushRun = (end: number): void => {
    if (end > runStart) out.push(Buffer.from(src.subarray(runStart, end)));
  };
  const drain = (): void => {
    out.push(Buffer.from(left));
    left = [];
    state = 0;
  };
  const n = src.length;
  for (let i = 0; i < n; i++) {
    const ch = src[i]!;
    if (state === 0 && left.length === 0 && ch !== DOLLAR) continue; // plain text: copied in runs
    if (state === 0 && left.length === 0) flushRun(i);
    runStart = i + 1;
    if (state === SKIPPING) {
      left.push(ch);
      if (ch !== LF && ch !== DOLLAR) continue;
      if (ch === DOLLAR && !isForeignIdent(left)) {
        left.length = HEAD.length - 1;
        left.push(...ident);
      }
      drain();
      continue;
    }
    if (state < HEAD.length && HEAD[state] === ch) {
      state++;
      continue;
    }
    for (let k = 0; k < state; k++) left.push(HEAD[k]!);
    if (state === HEAD.length - 1) {
      if (ch !== COLON && ch !== DOLLAR) {
        left.push(ch);
        state = 0;
        continue;
      }
      if (ch === COLON) {
        left.push(ch);
        state = SKIPPING;
      } else {
        left.push(...ident);
        drain();
      }
      continue;
    }
    left.push(ch);
    drain();
  }
  if (state === 0 && left.length === 0) flushRun(n);
  else {
    for (let k = 0; k < state; k++) left.push(HEAD[k]!);
    drain();
  }
  return Buffer.concat(out);
}
