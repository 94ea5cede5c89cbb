// Partial clones in the config, as git 2.39 keeps them (promisor-remote.c, list-objects-filter-
// options.c): which remotes promise the objects a filter left out, the filter a fetch asks for,
// and what a clone or fetch with --filter writes. Clone and fetch both go through here, so a
// repository made partial by either reads the same.
import type { Config } from '../config/index.js';
import { formatFilterSpec, parseFilterSpec, type FilterSpec } from '../protocol/index.js';

/**
 * The promisor remotes, in the order git asks them for a missing object: the one
 * extensions.partialClone names, then each remote with `promisor = true` or a
 * `partialclonefilter` (either makes it one to git), as the config first names it.
 */
export function promisorRemotes(config: Config): string[] {
  const names: string[] = [];
  const named = config.get('extensions', null, 'partialclone');
  if (named) names.push(named);
  for (const e of config.list()) {
    if (e.section !== 'remote' || e.subsection === null || names.includes(e.subsection)) continue;
    if (e.key === 'partialclonefilter' || (e.key === 'promisor' && config.getBool('remote', e.subsection, 'promisor'))) names.push(e.subsection);
  }
  return names;
}

/**
 * git's partial_clone_register: makes `remote` a promisor remote with `filter` as the filter of
 * later fetches, in the repository's own config. A remote that is a promisor with a filter
 * already keeps it (git's lazy fetches pass --filter=blob:none and must not overwrite it).
 * Making one needs repository format 1 (git's upgrade_repository_format), and nothing more:
 * git 2.39 writes no extensions.partialClone.
 */
export function registerPartialClone(config: Config, remote: string, filter: FilterSpec): void {
  if (promisorRemotes(config).includes(remote)) {
    if (config.get('remote', remote, 'partialclonefilter') !== undefined) return;
  } else {
    if (repositoryFormatVersion(config) < 1) config.set('core', null, 'repositoryformatversion', '1');
    config.set('remote', remote, 'promisor', 'true');
  }
  config.set('remote', remote, 'partialclonefilter', formatFilterSpec(filter));
  config.save();
}

/**
 * git's fetch_one_setup_partial: the filter a fetch from `remote` (a configured remote's name, or
 * the address given, which git names a remote by) asks for. `given` is the command line's:
 * null for --no-filter, which asks for everything; a filter, which also registers the remote as
 * a promisor; undefined, which takes the remote's partialclonefilter (a bad one ignored, as git
 * ignores it).
 */
export function fetchFilter(config: Config, remote: string, given: FilterSpec | null | undefined): FilterSpec | null {
  if (given === null) return null;
  if (given !== undefined) {
    registerPartialClone(config, remote, given);
    return given;
  }
  // A remote with a partialclonefilter is a promisor remote (promisorRemotes).
  const spec = config.get('remote', remote, 'partialclonefilter');
  if (spec === undefined) return null;
  try {
    return parseFilterSpec(spec);
  } catch {
    return null;
  }
}

/** core.repositoryformatversion as the repository's own file says (git reads the format from it alone). */
function repositoryFormatVersion(config: Config): number {
  const own = config.list().filter((e) => e.scope === 'local' && e.section === 'core' && e.subsection === null && e.key === 'repositoryformatversion');
  const text = own[own.length - 1]?.value;
  return text ? Number.parseInt(text, 10) || 0 : 0;
}
