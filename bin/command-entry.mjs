// Which bundle serves a command line (scripts/bundle.mjs): shared by bin/tsgit and the test suite's
// in-process runner (test/cli-batch.ts), which must load what the CLI loads. Kept apart from
// bin/tsgit, which runs when imported, and small: every command pays for loading it.
import { existsSync } from 'node:fs';

// The command the line names, past git's global options (-C <path>, -c <name>=<value>,
// --git-dir[=]<path>), or null when an option comes first that is not one of those (--help,
// --version). Only to pick the bundle to load: the dispatcher parses the line itself, and a
// bundle asked for another command loads the whole CLI.
export function commandName(args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-C' || a === '-c' || a === '--git-dir') i++;
    else if (a.startsWith('--git-dir=')) continue;
    else return a.startsWith('-') ? null : a;
  }
  return null;
}

// A command's own bundle when it has one, else the whole CLI.
export function entryFor(name) {
  if (name && /^[a-z][a-z-]*$/.test(name)) {
    const own = new URL(`../dist/src/tsgit-cmd-${name}.js`, import.meta.url);
    if (existsSync(own)) return own.href;
  }
  return new URL('../dist/src/tsgit-main.js', import.meta.url).href;
}
