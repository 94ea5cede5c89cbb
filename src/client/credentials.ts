// Credentials for an HTTP remote as git gets them (gitcredentials(7), git-credential(1), git's
// credential.c and prompt.c), asked for when the server answers 401:
//   1. the URL's user name, else credential.username;
//   2. each of credential.helper's helpers in turn, `<helper> get` with the request on stdin
//      (protocol, host, path when credential.useHttpPath, username), until one gives a user name
//      and a password; `quit=1` stops there;
//   3. what is still missing from GIT_ASKPASS, core.askPass or SSH_ASKPASS, run with git's prompt
//      ("Username for 'https://host': "). tsgit has no terminal prompt: without a helper or an
//      askpass program the fill fails, naming what it could not read.
// A helper is `!<shell command>`, an absolute path, or a name run as `git credential-<name>`
// (all through the shell, with the action appended). Credentials that worked are given to every
// helper with `store`; ones the server refused, with `erase`. As git, one fill per connection:
// refused credentials are not asked for again.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseBool, type Config } from '../config/index.js';
import { urlMatchedList, urlMatchedValue } from '../config/url-match.js';
import { GitError } from '../core/errors.js';
import type { CredentialCallback, Credentials, HttpSettings } from '../transport/index.js';

type Fields = Map<string, string>;

/** git's credential fill for `url`, and its approve and reject. */
export function credentialsFor(config: Config, env: NodeJS.ProcessEnv, url: URL): Pick<HttpSettings, 'credentials' | 'credentialResult'> {
  const helpers = urlMatchedList(config, 'credential', 'helper', url);
  const useHttpPath = urlMatchedValue(config, 'credential', 'usehttppath', url);
  const username = urlMatchedValue(config, 'credential', 'username', url);
  const request: Fields = new Map([['protocol', url.protocol.slice(0, -1)], ['host', url.host]]);
  if (useHttpPath === null || (useHttpPath !== undefined && parseBool(useHttpPath))) {
    request.set('path', decodeURIComponent(url.pathname.replace(/^\//, '')));
  }
  if (url.username) request.set('username', decodeURIComponent(url.username));
  else if (username) request.set('username', username);
  let filled = false;
  const credentials: CredentialCallback = async ({ previous }) => {
    if (previous || filled) return null;
    filled = true;
    return fill(new Map(request), helpers, config, env);
  };
  const withSecret = (c: Credentials): Fields => new Map([...request, ['username', c.username], ['password', c.password]]);
  return {
    credentials,
    credentialResult: async (c, accepted) => {
      for (const helper of helpers) await runHelper(helper, accepted ? 'store' : 'erase', withSecret(c), env);
    },
  };
}

async function fill(c: Fields, helpers: readonly string[], config: Config, env: NodeJS.ProcessEnv): Promise<Credentials> {
  for (const helper of helpers) {
    const answer = await runHelper(helper, 'get', c, env);
    for (const [k, v] of answer) c.set(k, v);
    if (c.get('quit') && parseBool(c.get('quit')!) !== false) {
      throw new GitError('transport', 'auth', `credential helper '${helper}' told us to quit`);
    }
    if (c.has('username') && c.has('password')) break;
  }
  const where = `${c.get('protocol')}://${c.get('host')}`;
  if (!c.has('username')) c.set('username', await prompt(`Username for '${where}': `, 'Username', where, config, env));
  if (!c.has('password')) {
    const shown = `${c.get('protocol')}://${c.get('username')}@${c.get('host')}`;
    c.set('password', await prompt(`Password for '${shown}': `, 'Password', shown, config, env));
  }
  return { username: c.get('username')!, password: c.get('password')! };
}

/** git's git_prompt without a terminal: the askpass program's first line. */
async function prompt(text: string, what: string, where: string, config: Config, env: NodeJS.ProcessEnv): Promise<string> {
  const askpass = env.GIT_ASKPASS || config.get('core', null, 'askpass') || env.SSH_ASKPASS;
  if (askpass) {
    const out = await run(askpass, [text], null, env, false);
    if (out !== null) return out.split('\n', 1)[0]!.replace(/\r$/, '');
    throw new GitError('transport', 'auth', `unable to read askpass response from '${askpass}'`);
  }
  const terminal = env.GIT_TERMINAL_PROMPT;
  const why = terminal !== undefined && parseBool(terminal) === false
    ? 'terminal prompts disabled'
    : 'tsgit does not prompt on the terminal; set credential.helper or GIT_ASKPASS';
  throw new GitError('transport', 'auth', `could not read ${what} for '${where}': ${why}`);
}

/** Runs `<helper> <action>` with `fields` on stdin; its answer's fields (none when it failed). */
async function runHelper(helper: string, action: 'get' | 'store' | 'erase', fields: Fields, env: NodeJS.ProcessEnv): Promise<Fields> {
  const command = helper.startsWith('!') ? helper.slice(1) : path.isAbsolute(helper) ? helper : `git credential-${helper}`;
  const input = [...fields].map(([k, v]) => `${k}=${v}\n`).join('');
  const out = await run('/bin/sh', ['-c', `${command} ${action}`], input, env, true);
  const answer: Fields = new Map();
  for (const line of (out ?? '').split('\n')) {
    if (line === '') break;
    const eq = line.indexOf('=');
    if (eq > 0) answer.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return answer;
}

/** stdout of a program, or null when it could not run or failed (its stderr is ours, as in git). */
function run(file: string, args: string[], stdin: string | null, env: NodeJS.ProcessEnv, ignoreStatus: boolean): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: [stdin === null ? 'ignore' : 'pipe', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 || ignoreStatus ? Buffer.concat(chunks).toString('utf8') : null));
    if (child.stdin) {
      child.stdin.on('error', () => {}); // a helper need not read what it is given
      child.stdin.end(stdin);
    }
  });
}
