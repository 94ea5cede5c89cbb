// Progress on the terminal: whether to show it, as git decides, and the meters drawn on stderr.
import { progressText, type Progress } from '../core/progress.js';
import { writeAll } from './output.js';

/** Whether to show progress by default: git shows it when stderr is a terminal. */
export function progressWanted(flags: { quiet?: boolean; progress?: boolean; verbose?: boolean } = {}): boolean {
  if (flags.quiet) return false;
  if (flags.progress || flags.verbose) return true;
  return process.stderr.isTTY === true;
}

/** Meters drawn on stderr, split to its width (else $COLUMNS, else 80) as git's are. */
export function stderrProgress(): Progress {
  const envColumns = Number(process.env.COLUMNS);
  const columns = process.stderr.columns || (envColumns > 0 ? envColumns : 80);
  return progressText((text) => writeAll(2, Buffer.from(text, 'utf8')), { columns });
}

/** stderrProgress() when `show`, else none. */
export function progressIf(show: boolean): Progress | undefined {
  return show ? stderrProgress() : undefined;
}
