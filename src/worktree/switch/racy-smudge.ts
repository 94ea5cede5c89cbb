// Which kept entries a switch's new index marks "smudged" (size 0), as git decides when it writes
// the index (read-cache.c ce_smudge_racily_clean_entry; index-file/write.ts smudges every racy entry
// not marked checked, which is why each of these is marked): an entry modified in the second the old
// index was written, or later, whose stat data still matches its file, is smudged only when the
// file, read back through the attributes now in the work tree, no longer gives its blob (so that
// the next reader compares contents rather than trusting the stat data). One whose stat data does
// not match is left as it is: no reader trusts it anyway.
import type { IndexEntry } from '../index-file/entry.js';
import type { CleanChecks } from './clean.js';

/**
 * Decides for each of `racy` (kept entries, not just checked, modified at or after the old index)
 * and marks it checked, so that the index writer does not smudge it again by its own rule.
 */
export async function smudgeRacyIfChanged(racy: readonly IndexEntry[], checks: CleanChecks): Promise<void> {
  const decisions: Promise<void>[] = [];
  for (const e of racy) {
    e.uptodate = true;
    if (checks.byStat(e) !== 'racy') continue;
    decisions.push(checks.isClean(e).then(clean => { if (!clean) e.size = 0; }));
  }
  await checks.run();
  await Promise.all(decisions);
}
