// The repository format, checked before anything is read (git's setup.c check_repository_format
// and verify_repository_format): core.repositoryformatversion 0 or 1, and, under version 1, only
// extensions this implementation knows. An extension changes what the files mean (another hash,
// another ref store), so a reader that does not know it must refuse rather than misread; git's
// own messages, then tsgit's for what git knows and tsgit does not (extensions.objectFormat other
// than sha1). What it allows: noop, preciousObjects (nothing may be deleted: repack -d refuses),
// partialClone (a promisor remote), worktreeConfig ($GIT_DIR/config.worktree is read too), and
// under version 1 noop-v1 and objectFormat=sha1.
import { GitError } from '../core/errors.js';
import { parseBool, type Config } from '../config/index.js';

export interface RepositoryFormat {
  version: number;
  preciousObjects: boolean;
}

/** Extensions git 2.39 accepts under version 0 (handle_extension_v0), and only under 1. */
const V0 = new Set(['noop', 'preciousobjects', 'partialclone', 'worktreeconfig']);
const V1_ONLY = new Set(['noop-v1', 'objectformat']);

/** `config` is the repository's own (no global files), as git reads the format from it alone. */
export function checkRepositoryFormat(config: Config, gitDir: string): RepositoryFormat {
  const text = config.get('core', null, 'repositoryformatversion');
  const version = text === undefined ? 0 : Number.parseInt(text, 10);
  const fail = (message: string) => new GitError('core', 'repository-format', message);
  if (!Number.isFinite(version)) throw fail(`bad numeric config value '${text}' for 'core.repositoryformatversion' in ${gitDir}/config`);
  if (version > 1) throw fail(`Expected git repo version <= 1, found ${version}`);
  const unknown: string[] = [], v1Only: string[] = [];
  let preciousObjects = false;
  for (const e of config.list()) {
    if (e.section !== 'extensions' || e.subsection !== null) continue;
    if (e.key === 'preciousobjects') preciousObjects = e.value === null || parseBool(e.value) === true;
    if (V0.has(e.key)) continue;
    if (V1_ONLY.has(e.key)) {
      v1Only.push(e.key);
      if (e.key === 'objectformat' && version >= 1 && (e.value ?? '').toLowerCase() !== 'sha1') {
        throw fail(`'${gitDir}' uses extensions.objectFormat=${e.value}; tsgit reads only SHA-1 repositories`);
      }
      continue;
    }
    unknown.push(e.key);
  }
  if (version >= 1 && unknown.length) {
    throw fail(`unknown repository extension${unknown.length > 1 ? 's' : ''} found:${unknown.map((x) => `\n\t${x}`).join('')}`);
  }
  if (version === 0 && v1Only.length) {
    throw fail(`repo version is 0, but v1-only extension${v1Only.length > 1 ? 's' : ''} found:${v1Only.map((x) => `\n\t${x}`).join('')}`);
  }
  return { version, preciousObjects };
}
