// What the configuration says about an HTTP remote, per URL (config/url-match.ts), as git's
// http.c reads it: http.extraHeader; the credentials (client/credentials.ts); and for https the
// certificates to trust and whether to check them: http.sslVerify (false, or $GIT_SSL_NO_VERIFY
// set, turns the check off), http.sslCAInfo / $GIT_SSL_CAINFO (a bundle) and http.sslCAPath /
// $GIT_SSL_CAPATH (a directory of certificates), the environment winning. Without either, the
// system's bundle, which is what git's libcurl trusts (so a CA the administrator installed is
// trusted here too), with $NODE_EXTRA_CA_CERTS; node's own roots where there is no such file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseBool, type Config } from '../config/index.js';
import { urlMatchedList, urlMatchedValue } from '../config/url-match.js';
import { GitError } from '../core/errors.js';
import type { HttpSettings } from '../transport/index.js';
import { credentialsFor } from './credentials.js';

/** Where distributions keep the bundle libcurl is built to use (Debian and Alpine, Red Hat, BSD and macOS). */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

export function httpSettingsFor(config: Config, env: NodeJS.ProcessEnv, url: URL): HttpSettings {
  const settings: HttpSettings = { extraHeaders: urlMatchedList(config, 'http', 'extraheader', url), ...credentialsFor(config, env, url) };
  if (url.protocol !== 'https:') return settings;
  const verify = urlMatchedValue(config, 'http', 'sslverify', url);
  const noVerify = env.GIT_SSL_NO_VERIFY !== undefined || (verify !== undefined && verify !== null && parseBool(verify) === false);
  const caInfo = env.GIT_SSL_CAINFO || pathname(urlMatchedValue(config, 'http', 'sslcainfo', url), env);
  const caPath = env.GIT_SSL_CAPATH || pathname(urlMatchedValue(config, 'http', 'sslcapath', url), env);
  let ca: string[] | undefined;
  if (caInfo || caPath) {
    ca = [];
    if (caInfo) ca.push(readCertificates(caInfo, 'http.sslCAInfo'));
    if (caPath) {
      for (const name of fs.readdirSync(caPath).sort()) {
        const file = path.join(caPath, name);
        if (fs.statSync(file).isFile()) ca.push(fs.readFileSync(file, 'latin1'));
      }
    }
  } else {
    const system = SYSTEM_BUNDLES.find((f) => fs.existsSync(f));
    if (system) {
      ca = [fs.readFileSync(system, 'latin1')];
      if (env.NODE_EXTRA_CA_CERTS) ca.push(readCertificates(env.NODE_EXTRA_CA_CERTS, 'NODE_EXTRA_CA_CERTS'));
    }
  }
  return { ...settings, tls: { verify: !noVerify, ...ca ? { ca } : {} } };
}

/** A config path value as git_config_pathname takes it: `~/` is the home directory. */
function pathname(value: string | null | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (!value) return undefined;
  return value.startsWith('~/') ? path.join(env.HOME ?? os.homedir(), value.slice(2)) : value;
}

function readCertificates(file: string, from: string): string {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch (e) {
    throw new GitError('transport', 'tls', `unable to read the certificates of ${from} '${file}': ${(e as Error).message}`);
  }
}
