// What a repository's configuration lets upload-pack do, read the way git's upload-pack reads it:
// which unadvertised wants are allowed, whether partial-clone filters are accepted (and which),
// and the optional v2 features that git keeps off unless configured.
import { GitError } from '../core/errors.js';
import type { Config } from '../config/index.js';
import type { FilterSpec } from '../protocol/index.js';
import { hideRefsConfig } from './hidden-refs.js';

export interface UploadPackPolicy {
  allowTipSha1InWant: boolean;
  allowReachableSha1InWant: boolean;
  allowAnySha1InWant: boolean;
  allowFilter: boolean;
  allowRefInWant: boolean;
  allowSidebandAll: boolean;
  /** Seconds between keep-alive packets while the pack is being prepared; 0 disables them. */
  keepAlive: number;
  /** lsrefs.unborn: 'advertise' (default), 'allow' or 'ignore'. */
  unborn: 'advertise' | 'allow' | 'ignore';
  /** zlib level for objects compressed afresh. */
  compression: number;
  /** pack.useBitmaps: answer fetches from reachability bitmaps when the repository has them. */
  useBitmaps: boolean;
  /** pack.allowPackReuse: copy the bitmapped pack's entries verbatim when they are sent. */
  allowPackReuse: boolean;
  /** transfer.hideRefs and uploadpack.hideRefs, in configuration order. */
  hideRefs: string[];
  /** For the per-filter settings (uploadpackfilter.*). */
  config: Config | null;
}

export function readPolicy(config: Config | null): UploadPackPolicy {
  const bool = (key: string, dflt = false) => config?.getBool('uploadpack', null, key) ?? dflt;
  const any = bool('allowanysha1inwant');
  const unborn = config?.get('lsrefs', null, 'unborn') ?? 'advertise';
  if (unborn !== 'advertise' && unborn !== 'allow' && unborn !== 'ignore') {
    throw new GitError('config', 'bad-value', `invalid value for 'lsrefs.unborn': '${unborn}'`);
  }
  return {
    allowTipSha1InWant: any || bool('allowtipsha1inwant'),
    allowReachableSha1InWant: any || bool('allowreachablesha1inwant'),
    allowAnySha1InWant: any,
    allowFilter: bool('allowfilter'),
    allowRefInWant: bool('allowrefinwant'),
    allowSidebandAll: bool('allowsidebandall'),
    keepAlive: config?.getInt('uploadpack', null, 'keepalive') ?? 5,
    unborn,
    compression: config?.getInt('pack', null, 'compression') ?? config?.getInt('core', null, 'compression') ?? -1,
    useBitmaps: config?.getBool('pack', null, 'usebitmaps') ?? true,
    allowPackReuse: config?.getBool('pack', null, 'allowpackreuse') ?? true,
    hideRefs: hideRefsConfig(config, 'uploadpack'),
    config,
  };
}

/**
 * Refuses a filter the configuration does not allow, with git's messages: uploadpackfilter.allow
 * is the default for every kind, uploadpackfilter.<kind>.allow overrides it, and
 * uploadpackfilter.tree.maxDepth caps tree:<depth>.
 */
export function checkFilterAllowed(policy: UploadPackPolicy, filter: FilterSpec): void {
  const config = policy.config;
  const fallback = config?.getBool('uploadpackfilter', null, 'allow') ?? true;
  const kinds: FilterSpec[] = filter.kind === 'combine' ? [...filter.filters] : [filter];
  if (filter.kind === 'combine' && !(config?.getBool('uploadpackfilter', 'combine', 'allow') ?? fallback)) {
    throw notSupported('combine');
  }
  for (const f of kinds) {
    if (!(config?.getBool('uploadpackfilter', f.kind, 'allow') ?? fallback)) throw notSupported(f.kind);
    if (f.kind === 'tree') {
      const max = config?.getInt('uploadpackfilter', 'tree', 'maxdepth');
      if (max !== undefined && f.depth > max) {
        throw new GitError('server', 'filter-not-allowed', `tree filter allows max depth ${max}, but got ${f.depth}`);
      }
    }
  }
}

function notSupported(kind: string): GitError {
  return new GitError('server', 'filter-not-allowed', `filter '${kind}' not supported`);
}
