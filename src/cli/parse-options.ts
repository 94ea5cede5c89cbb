// A command line read as git's commands read theirs: "--name=value" or "--name value" (and
// "-x value") for an option that takes a value, "--" ending the options, "-" and anything else not
// starting with "-" an argument. The command says which options it has; this walk is all they share.
import { UsageError } from '../core/errors.js';

export interface ParseSettings {
  /** The error for an option whose value is not there, for commands with messages of their own. */
  missingValue?: (name: string) => UsageError;
  /**
   * False: "-abc" is one word, an unknown option, for commands whose git counterpart reads its
   * words whole (git-submodule.sh's case statements) or that have none (serve).
   */
  bundles?: boolean;
  /** The first argument ends the options: it and every word after it are arguments (git's PARSE_OPT_STOP_AT_NON_OPTION). */
  stopAtNonOption?: boolean;
  /** "--" stays among the arguments, where it was (git's PARSE_OPT_KEEP_DASHDASH). */
  keepDashDash?: boolean;
}

/**
 * Hands every option in `args` to `option`, which returns false for one the command does not have
 * (an "unknown option" usage error). `name` is the option without any "=value"; `value()` takes its
 * value (the "=value", else the next word); `inline` is the "=value" alone, for an option whose
 * value is optional. As git's parse-options, "-abc" is the switches -a, -b and -c, unless one takes
 * a value: that is the rest of the word ("-n5", "-rn5"), else the next word; a short option's value
 * is never optional here (`inline` is undefined). Returns the arguments, in order.
 */
export function parseOptions(args: readonly string[],
  option: (name: string, value: () => string, inline: string | undefined) => boolean,
  settings: ParseSettings = {}): string[] {
  const rest: string[] = [];
  let i = 0;
  const nextWord = (name: string): string => {
    const v = args[++i];
    if (v === undefined) throw settings.missingValue?.(name) ?? new UsageError(`option '${name}' requires a value`);
    return v;
  };
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      rest.push(...args.slice(settings.keepDashDash ? i : i + 1));
      break;
    }
    if (settings.bundles !== false && /^-[^-]./s.test(a)) {
      bundle(a, option, nextWord);
      continue;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    if (settings.stopAtNonOption && (!a.startsWith('-') || a === '-')) {
      rest.push(...args.slice(i));
      break;
    }
    if (option(name, () => inline ?? nextWord(name), inline)) continue;
    if (a.startsWith('-') && a !== '-') {
      // A command that reads its words whole has no parse-options counterpart in git to word it.
      throw settings.bundles === false ? new UsageError(`unknown option '${a}'`) : unknownOption(a);
    }
    rest.push(a);
  }
  return rest;
}

/**
 * parse-options.c's error for an option a command does not have: "unknown option `name'" (with
 * any "=value", as git prints it), "unknown switch `c'".
 */
export function unknownOption(word: string): UsageError {
  if (word.startsWith('--')) return new UsageError(`unknown option \`${word.slice(2)}'`);
  // A lone "-" names no switch; the hand-read command lines that refuse it say so whole.
  return new UsageError(word.length > 1 ? `unknown switch \`${word[1]}'` : `unknown option '${word}'`);
}

/** The switches of one word "-abc", up to one that takes a value (parse-options.c's parse_short_opt in a loop). */
function bundle(word: string, option: (name: string, value: () => string, inline: undefined) => boolean,
  nextWord: (name: string) => string): void {
  for (let at = 1; at < word.length; at++) {
    const name = `-${word[at]!}`;
    let valued = false;
    const value = (): string => {
      valued = true;
      return at + 1 < word.length ? word.slice(at + 1) : nextWord(name);
    };
    // As git's parse-options: the letter it could not take is named, after any it took.
    if (!option(name, value, undefined)) throw unknownOption(name);
    if (valued) return;
  }
}
