// `git submodule init` (submodule--helper's init_submodule): copy each submodule's settings from
// `.gitmodules` into the superproject's config, where the user may change them and where they
// are trusted from then on: submodule.<name>.active (unless submodule.active already covers it),
// submodule.<name>.url (a relative URL resolved now, against the superproject's remote) and
// submodule.<name>.update (a `!command` from `.gitmodules` is registered as `none`: a repository
// does not get to choose a command the user runs).
import { GitError } from '../../core/errors.js';
import type { Superproject, ListedSubmodule } from './superproject.js';

export interface Reporter {
  /** git's stdout. */
  out(text: string): void;
  /** git's stderr. */
  err(text: string): void;
}

/** What `init` registers (git's module_init): without paths, and with submodule.active set, only the active ones. */
export function submodulesToInit(sp: Superproject, list: readonly ListedSubmodule[], named: boolean): readonly ListedSubmodule[] {
  const active = !named && sp.config.getAll('submodule', null, 'active').length > 0;
  return active ? list.filter((e) => sp.isActive(e.path)) : list;
}

export function initSubmodules(sp: Superproject, list: readonly ListedSubmodule[], o: {
  quiet: boolean; displayPath: (p: string) => string; report: Reporter;
}): void {
  const config = sp.config;
  // One write of the config for them all; what was set before an error is kept, as git's
  // per-submodule writes keep it.
  try {
    for (const entry of list) {
      const display = o.displayPath(entry.path);
      const sub = sp.submodule(entry.path);
      if (!sub) throw new GitError('client', 'no-url', `No url found for submodule path '${display}' in .gitmodules`);
      if (!sp.isActive(entry.path)) config.set('submodule', sub.name, 'active', 'true');
      if (config.get('submodule', sub.name, 'url') === undefined) {
        if (sub.url === null) throw new GitError('client', 'no-url', `No url found for submodule path '${display}' in .gitmodules`);
        const url = sp.resolveUrl(sub.url, (m) => o.report.err(`warning: ${m}\n`));
        config.set('submodule', sub.name, 'url', url);
        if (!o.quiet) o.report.err(`Submodule '${sub.name}' (${url}) registered for path '${display}'\n`);
      }
      if (config.get('submodule', sub.name, 'update') === undefined && sub.update !== null) {
        let update: string = sub.update;
        if (update.startsWith('!')) {
          o.report.err(`warning: command update mode suggested for submodule '${sub.name}'\n`);
          update = 'none';
        }
        config.set('submodule', sub.name, 'update', update);
      }
    }
  } finally {
    config.save();
  }
}
