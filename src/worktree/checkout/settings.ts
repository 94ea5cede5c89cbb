// The configuration and attribute files a checkout depends on, read once: core.autocrlf, core.eol,
// core.symlinks, core.ignoreCase, and the attributes files outside the tree ($GIT_DIR/info/
// attributes, core.attributesFile or its XDG default, /etc/gitattributes unless
// $GIT_ATTR_NOSYSTEM).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { configPathname } from '../../config/interpolate-path.js';
import { parseAutoCrlf, parseCoreEol, type EolSettings } from '../convert.js';

export interface CheckoutSettings extends EolSettings {
  symlinks: boolean;
  ignoreCase: boolean;
  infoAttributes: Buffer | null;
  globalAttributes: Buffer | null;
  systemAttributes: Buffer | null;
  /** The global and info files as git names them in its messages about their lines. */
  globalAttributesName: string | null;
  infoAttributesName: string;
}

function readIfExists(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v);
}

/**
 * info/attributes (in the common directory: all work trees share it) as git names it: relative
 * to the top of the work tree when the repository is its .git (git works from there), else as
 * the directory was found.
 */
function infoAttributesName(commonDir: string, workTree: string | null): string {
  if (workTree && path.resolve(commonDir) === path.resolve(workTree, '.git')) return '.git/info/attributes';
  return path.join(commonDir, 'info', 'attributes');
}

export function readCheckoutSettings(config: Config, commonDir: string, env: NodeJS.ProcessEnv = process.env,
  workTree: string | null = null): CheckoutSettings {
  const attributesFile = config.get('core', null, 'attributesfile');
  let globalFile: string | null;
  if (attributesFile !== undefined) {
    globalFile = attributesFile ? configPathname(attributesFile, env) : null;
  } else {
    const xdg = env.XDG_CONFIG_HOME || (env.HOME ? path.join(env.HOME, '.config') : null);
    globalFile = xdg ? path.join(xdg, 'git', 'attributes') : null;
  }
  return {
    autocrlf: parseAutoCrlf(config.get('core', null, 'autocrlf'), () => config.getBool('core', null, 'autocrlf')),
    eol: parseCoreEol(config.get('core', null, 'eol')),
    symlinks: config.getBool('core', null, 'symlinks') ?? true,
    ignoreCase: config.getBool('core', null, 'ignorecase') ?? false,
    infoAttributes: readIfExists(path.join(commonDir, 'info', 'attributes')),
    globalAttributes: globalFile ? readIfExists(globalFile) : null,
    systemAttributes: truthy(env.GIT_ATTR_NOSYSTEM) ? null : readIfExists('/etc/gitattributes'),
    globalAttributesName: globalFile,
    infoAttributesName: infoAttributesName(commonDir, workTree),
  };
}
