// The configuration and attribute files a checkout depends on, read once: core.autocrlf, core.eol,
// core.symlinks, core.ignoreCase, and the attributes files outside the tree (info/attributes,
// core.attributesFile or its XDG default, /etc/gitattributes unless $GIT_ATTR_NOSYSTEM).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { configPathname } from '../../config/interpolate-path.js';
import type { AttributesFile } from '../attributes/check.js';
import { infoAttributesFile } from '../attributes/info-file.js';
import { parseAutoCrlf, parseCoreEol, type EolSettings } from '../convert.js';

export interface CheckoutSettings extends EolSettings {
  symlinks: boolean;
  ignoreCase: boolean;
  infoAttributes: AttributesFile | null;
  globalAttributes: Buffer | null;
  systemAttributes: Buffer | null;
  /** The global file as git names it in its messages about its lines. */
  globalAttributesName: string | null;
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
  const info = infoAttributesFile(commonDir, workTree);
  const infoData = readIfExists(info.path);
  return {
    autocrlf: parseAutoCrlf(config.get('core', null, 'autocrlf'), () => config.getBool('core', null, 'autocrlf')),
    eol: parseCoreEol(config.get('core', null, 'eol')),
    symlinks: config.getBool('core', null, 'symlinks') ?? true,
    ignoreCase: config.getBool('core', null, 'ignorecase') ?? false,
    infoAttributes: infoData && { data: infoData, name: info.name },
    globalAttributes: globalFile ? readIfExists(globalFile) : null,
    systemAttributes: truthy(env.GIT_ATTR_NOSYSTEM) ? null : readIfExists('/etc/gitattributes'),
    globalAttributesName: globalFile,
  };
}
