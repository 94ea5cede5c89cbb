// `git submodule sync [--recursive] [<path>...]` (submodule--helper's sync_submodule): for each
// active submodule the pathspec selects, the URL `.gitmodules` gives now becomes the superproject's
// submodule.<name>.url and, where the submodule is checked out, its default remote's URL, a
// relative URL resolved against the superproject's remote (for the submodule's own remote, a
// relative remote keeps one `../` per level of its path). CI checkouts run it before updating.
import { Config } from '../../config/index.js';
import type { Repository } from '../../repository/repository.js';
import { isRelativeUrl, relativeUrl } from './relative-url.js';
import { submoduleDefaultRemote } from './superproject.js';
import { submoduleEnv, visitSubmodules, type SubmoduleVisitOptions, type VisitedSubmodule } from './visit.js';

export function syncSubmodules(repo: Repository, o: SubmoduleVisitOptions): void {
  visitSubmodules(repo, o, (v) => syncSubmodule(v, o));
}

/** git's sync_submodule, for one gitlink. */
export function syncSubmodule({ sp, entry, shown, gitDir, open, recurse }: VisitedSubmodule, o: SubmoduleVisitOptions): void {
  const sub = sp.submodule(entry.path);
  if (!sub || !sp.isActive(entry.path)) return;
  const url = sub.url ?? '';
  const relative = isRelativeUrl(url);
  if (!o.quiet) o.report.out(`Synchronizing submodule url for '${shown}'\n`);
  // Written at once, as git writes each one: what is done stays done if a later path fails.
  sp.config.set('submodule', sub.name, 'url', relative ? sp.resolveUrl(url, null) : url);
  sp.config.save();
  const dir = gitDir();
  if (dir === null) return;
  open(dir, (subRepo) => {
    const subConfig = Config.loadSync(dir, { env: sp.env });
    const upPath = '../'.repeat(entry.path.split('/').length);
    const remoteUrl = sp.config.get('remote', sp.defaultRemote(), 'url') ?? sp.workTree;
    subConfig.set('remote', submoduleDefaultRemote(subRepo, subRepo.loadConfig(submoduleEnv(sp.env))), 'url',
      relative ? relativeUrl(remoteUrl, url, upPath) : url);
    subConfig.save();
    recurse(subRepo);
  });
}
