// A command line read as git's commands read theirs: "--name=value" or "--name value" (and
// "-x value") for an option that takes a value, "--" ending the options, "-" and anything else not
// starting with "-" an argument. The command says which options it has; this walk is all they share.
import { UsageError } from '../core/errors.js';

/**
 * Hands every option in `args` to `option`, which returns false for one the command does not have
 * (an "unknown option" usage error). `name` is the option without any "=value"; `value()` takes its
 * value (the "=value", else the next word); `inline` is the "=value" alone, for an option whose
 * value is optional. `missingValue` words the usage error for an option whose value is not there,
 * for commands with messages of their own. Returns the arguments, in order.
 */
export function parseOptions(args: readonly string[],
  option: (name: string, value: () => string, inline: string | undefined) => boolean,
  opts: { missingValue?: (name: string) => string } = {}): string[] {
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string => {
      if (eq > 0) return a.slice(eq + 1);
      const v = args[++i];
      if (v === undefined) throw new UsageError(opts.missingValue?.(name) ?? `option '${name}' requires a value`);
      return v;
    };
    if (name === '--') {
      rest.push(...args.slice(i + 1));
      break;
    }
    if (option(name, value, eq > 0 ? a.slice(eq + 1) : undefined)) continue;
    if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option '${a}'`);
    rest.push(a);
  }
  return rest;
}
