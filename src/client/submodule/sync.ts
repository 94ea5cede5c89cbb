// `git submodule sync [--recursive] [<path>...]` (submodule--helper's sync_submodule): for each
// active submodule the pathspec selects, the URL `.gitmodules` gives now becomes the superproject's
// submodule.<name>.url and, where the submodule is checked out, its default remote's URL, a
// relative URL resolved against the superproject's remote (for the submodule's own remote, a
// relative remote keeps one `../` per level of its path). CI checkouts run it before updating.
import path from 'node:path';
import { Config } from '../../config/index.js';
import { Repository } from '../../repository/repository.js';
import { submoduleGitDir, validateSubmodulePath } from './paths.js';
import { isRelativeUrl, relativeUrl } from './relative-url.js';
import type { SubmoduleVisitOptions } from './status.js';
import { Superproject } from './superproject.js';
import { displayPath, submoduleEnv } from './update.js';

export function syncSubmodules(repo: Repository, o: SubmoduleVisitOptions): void {
  const env = o.env ?? process.env;
  const sp = Superproject.open(repo, env, (m) => o.report.err(`warning: ${m}\n`));
  try {
    for (const entry of sp.list(o.paths ?? [], o.prefix)) {
      validateSubmodulePath(sp.workTree, entry.path);
      const sub = sp.submodule(entry.path);
      if (!sub || !sp.isActive(entry.path)) continue;
      const url = sub.url ?? '';
      const relative = isRelativeUrl(url);
      const shown = displayPath(entry.path, o.prefix, o.superPrefix);
      if (!o.quiet) o.report.out(`Synchronizing submodule url for '${shown}'\n`);
      sp.config.set('submodule', sub.name, 'url', relative ? sp.resolveUrl(url, null) : url);
      const gitDir = submoduleGitDir(sp.workTree, entry.path);
      if (gitDir === null) continue;
      const subRepo = new Repository(gitDir, path.join(sp.workTree, entry.path));
      try {
        const subConfig = Config.loadSync(gitDir, { env });
        const upPath = '../'.repeat(entry.path.split('/').length);
        const remoteUrl = sp.config.get('remote', sp.defaultRemote(), 'url') ?? sp.workTree;
        subConfig.set('remote', Superproject.open(subRepo, submoduleEnv(env), () => {}).defaultRemote(), 'url',
          relative ? relativeUrl(remoteUrl, url, upPath) : url);
        subConfig.save();
        if (o.recursive) syncSubmodules(subRepo, { ...o, paths: [], prefix: '', superPrefix: `${shown}/`, env: submoduleEnv(env) });
      } finally {
        subRepo.close();
      }
    }
  } finally {
    sp.config.save();
  }
}
