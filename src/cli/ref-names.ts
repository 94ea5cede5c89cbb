// Ref names as rev-parse's --symbolic-full-name and --abbrev-ref show them (refs.c): a name
// expanded by git's search rules to the ref it finds (following a symbolic ref to its end, so HEAD
// on a branch is that branch), and a full name shortened to the shortest form that still finds only
// it.
import { expandAbbreviation, REF_RULES } from '../refs/refspec.js';
import type { Repository } from '../repository/repository.js';


/**
 * git's dwim_ref: the full name `name` finds (the end of its symbolic chain) and how many of the
 * rules find a ref (more than one: ambiguous).
 */
export function dwimRef(repo: Repository, name: string): { full: string | null; count: number } {
  let full: string | null = null, count = 0;
  for (const ref of expandAbbreviation(name)) {
    const found = repo.resolveRefChain(ref);
    if (!found) continue;
    if (count++ === 0) full = found.chain[found.chain.length - 1]!;
  }
  return { full, count };
}

/**
 * git's shorten_unambiguous_ref: the shortest rule's form of `full` that no earlier rule (with
 * `strict`, no other rule) turns into an existing ref; `full` itself when there is none.
 */
export function shortenRef(repo: Repository, full: string, strict: boolean): string {
  for (let i = REF_RULES.length - 1; i > 0; i--) {
    const [prefix, suffix] = REF_RULES[i]!;
    if (!full.startsWith(prefix) || !full.endsWith(suffix) || full.length <= prefix.length + suffix.length) continue;
    const short = full.slice(prefix.length, full.length - suffix.length);
    const checked = strict ? REF_RULES.length : i;
    let j = 0;
    for (; j < checked; j++) {
      if (j === i) continue;
      if (repo.resolveRef(`${REF_RULES[j]![0]}${short}${REF_RULES[j]![1]}`) !== null) break;
    }
    if (j === checked) return short;
  }
  return full;
}
