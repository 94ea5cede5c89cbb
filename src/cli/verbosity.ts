// -v and -q as git's OPT__VERBOSITY reads them (parse-options-cb.c parse_opt_verbosity_cb): not a
// sum. Each -v raises a level of 0 or more, but makes a quiet one 1; each -q lowers a level of 0 or
// less, but makes a verbose one -1; so of "-q -v" the -v wins (1) and of "-v -q" the -q (-1).
// --no-verbose and --no-quiet both go back to 0.

/** The level after option `name`, or undefined when `name` is not one of the verbosity options. */
export function verbosityAfter(name: string, level: number): number | undefined {
  switch (name) {
    case '-v': case '--verbose': return level >= 0 ? level + 1 : 1;
    case '-q': case '--quiet': return level <= 0 ? level - 1 : -1;
    case '--no-verbose': case '--no-quiet': return 0;
    default: return undefined;
  }
}
