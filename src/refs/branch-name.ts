// Branches by their short names, as git's commands speak of them and as branch.<name>.* config keys
// them: refs/heads/<name> less its prefix. One place for the prefix test, written out before at a
// dozen call sites.
const HEADS = 'refs/heads/';

/** The branch `ref` names, or null when it is not under refs/heads/ (a tag, a detached HEAD, none). */
export function branchOf(ref: string | null | undefined): string | null {
  return ref?.startsWith(HEADS) ? ref.slice(HEADS.length) : null;
}

/** `ref` as git shows it where a branch is named short: a branch's name, any other ref whole. */
export function shortBranchName(ref: string): string {
  return branchOf(ref) ?? ref;
}
