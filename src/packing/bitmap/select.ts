// Which commits get a bitmap: git's bitmap_writer_select_commits(). Commits are sorted newest
// first by committer date; with fewer than 100 all get one. Otherwise the newest 101 each get one,
// then the gap between chosen commits widens by one per step up to 100 commits (until 20000 commits
// in), then keeps widening up to 5000. Within each window the choice is the first commit marked
// preferred (git: pack.preferBitmapTips), else the last merge in it, else the window's last commit.

const MIN_COMMITS = 100;
const MAX_COMMITS = 5000;
const MUST_REGION = 100;
const MIN_REGION = 20000;

export interface BitmapCandidates {
  /** Candidates are numbered 0..count-1 by the caller, in its walk order (ties keep that order). */
  count: number;
  /** Committer date (seconds). */
  date(i: number): number;
  /** Two or more parents. */
  isMerge(i: number): boolean;
  preferred?(i: number): boolean;
}

/** How many commits to skip after position `i` of the date-sorted list. */
export function nextCommitGap(i: number): number {
  if (i <= MUST_REGION) return 0;
  if (i <= MIN_REGION) return Math.min(i - MUST_REGION, MIN_COMMITS);
  return Math.max(Math.min(i - MIN_REGION, MAX_COMMITS), MIN_COMMITS);
}

/**
 * The chosen candidates, newest first (the order entries are written in). `maxBitmaps` > 0 caps
 * the count, as git's does; it does not apply below 100 commits.
 */
export function selectBitmapCommits(c: BitmapCandidates, maxBitmaps = -1): Int32Array {
  const n = c.count;
  const dates = new Float64Array(n);
  const sorted = new Int32Array(n);
  for (let i = 0; i < n; i++) { dates[i] = c.date(i); sorted[i] = i; }
  sorted.sort((a, b) => dates[b]! - dates[a]! || a - b);
  if (n < 100) return sorted;
  const chosen: number[] = [];
  for (let i = 0; ;) {
    const gap = nextCommitGap(i);
    if (i + gap >= n) break;
    if (maxBitmaps > 0 && chosen.length >= maxBitmaps) break;
    let pick = sorted[i + gap]!;
    if (gap > 0) {
      for (let j = 0; j <= gap; j++) {
        const cand = sorted[i + j]!;
        if (c.preferred?.(cand)) { pick = cand; break; }
        if (c.isMerge(cand)) pick = cand;
      }
    }
    chosen.push(pick);
    i += gap + 1;
  }
  return Int32Array.from(chosen);
}
