// What the configuration says about an HTTP remote, per URL (config/url-match.ts), as git's
// http.c reads it: http.extraHeader; the credentials (client/credentials.ts); the proxy
// (http.proxy, else $https_proxy/$HTTPS_PROXY for https or $http_proxy for http, else
// $all_proxy/$ALL_PROXY; an empty http.proxy means none; $no_proxy/$NO_PROXY names hosts that
// are reached directly, as libcurl reads it: `*`, or names matched whole or as a domain
// suffix, the lower-case variables winning as in git); and for https the
// certificates to trust and whether to check them: http.sslVerify (false, or $GIT_SSL_NO_VERIFY
// set, turns the check off), http.sslCAInfo / $GIT_SSL_CAINFO (a bundle) and http.sslCAPath /
// $GIT_SSL_CAPATH (a directory of certificates), the environment winning. Without either, the
// system's bundle, which is what git's libcurl trusts (so a CA the administrator installed is
// trusted here too), with $NODE_EXTRA_CA_CERTS; node's own roots where there is no such file.
import fs from 'node:fs';
import path from 'node:path';
import { parseBool, type Config } from '../config/index.js';
import { configPathname } from '../config/interpolate-path.js';
import { urlMatchedList, urlMatchedValue } from '../config/url-match.js';
import { GitError } from '../core/errors.js';
import type { HttpSettings } from '../transport/index.js';
import { credentialsFor } from './credentials.js';

/** Where distributions keep the bundle libcurl is built to use (Debian and Alpine, Red Hat, BSD and macOS). */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

export function httpSettingsFor(config: Config, env: NodeJS.ProcessEnv, url: URL): HttpSettings {
  const proxy = proxyFor(config, env, url);
  const settings: HttpSettings = {
    extraHeaders: urlMatchedList(config, 'http', 'extraheader', url), ...credentialsFor(config, env, url), ...proxy ? { proxy } : {},
  };
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

/** git's choice of proxy for `url` (get_curl_handle), or null to connect directly. */
function proxyFor(config: Config, env: NodeJS.ProcessEnv, url: URL): string | null {
  const pick = (...names: string[]): string | undefined => names.map((n) => env[n]).filter((v) => v !== undefined).at(-1);
  const configured = urlMatchedValue(config, 'http', 'proxy', url);
  const proxy = configured !== undefined
    ? configured ?? ''
    : (url.protocol === 'https:' ? pick('HTTPS_PROXY', 'https_proxy') : pick('http_proxy')) ?? pick('ALL_PROXY', 'all_proxy');
  if (!proxy) return null;
  const noProxy = pick('NO_PROXY', 'no_proxy');
  return noProxy !== undefined && bypasses(noProxy, url.hostname) ? null : proxy;
}

/** libcurl's no_proxy test: `*`, or an entry equal to the host or a domain the host is in. */
function bypasses(noProxy: string, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return noProxy.split(',').map((e) => e.trim().toLowerCase()).some((entry) => {
    if (entry === '*') return true;
    const domain = entry.replace(/^\./, '');
    return domain !== '' && (host === domain || host.endsWith(`.${domain}`));
  });
}

/** A path setting as git_config_pathname reads it; unset or empty is none. */
function pathname(value: string | null | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return value ? configPathname(value, env) : undefined;
}

function readCertificates(file: string, from: string): string {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch (e) {
    throw new GitError('transport', 'tls', `unable to read the certificates of ${from} '${file}': ${(e as Error).message}`);
  }
}
