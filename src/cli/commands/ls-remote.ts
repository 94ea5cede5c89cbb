// tsgit ls-remote [--heads] [--tags] [--refs] [--symref] [-q] [--exit-code] [--get-url]
//                 [--upload-pack=<exec>] [<repository> [<patterns>...]]
// Prints what git prints: "<id>\t<ref>" per ref in the server's order, peeled tags as "<ref>^{}",
// and with --symref a "ref: <target>\t<ref>" line before each symbolic ref.
import path from 'node:path';
import { lsRemote, refMatcher } from '../../client/ls-remote.js';
import { defaultRemoteName, resolveRemote } from '../../client/remote-config.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from '../../client/transport-config.js';
import { Config } from '../../config/index.js';
import { GitError, UsageError } from '../../core/errors.js';
import { discover } from '../../repository/discover.js';
import { parseRemoteUrl } from '../../transport/index.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'List references in a remote repository',
  synopsis: ['[--heads] [--tags] [--refs] [--upload-pack=<exec>] [-q | --quiet] [--exit-code] [--get-url] [--symref] [<repository> [<patterns>...]]'],
  options: [
    ['-q, --quiet', 'do not print remote URL'],
    ['-u, --upload-pack <exec>', 'path of git-upload-pack on the remote host'],
    ['-t, --tags', 'limit to tags'],
    ['-h, --heads', 'limit to heads'],
    ['--refs', 'do not show peeled tags'],
    ['--get-url', 'take url.<base>.insteadOf into account'],
    ['--exit-code', 'exit with exit code 2 if no matching refs are found'],
    ['--symref', 'show underlying ref in addition to the object pointed by it'],
  ],
};

export default async function lsRemoteCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let heads = false, tags = false, refsOnly = false, symref = false, quiet = false, exitCode = false, getUrl = false;
  let uploadPack: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-h' || a === '--heads') heads = true;
    else if (a === '-t' || a === '--tags') tags = true;
    else if (a === '--refs') refsOnly = true;
    else if (a === '--symref') symref = true;
    else if (a === '-q' || a === '--quiet') quiet = true;
    else if (a === '--exit-code') exitCode = true;
    else if (a === '--get-url') getUrl = true;
    else if (a === '--upload-pack' || a === '-u') uploadPack = args[++i] ?? missing(a);
    else if (a.startsWith('--upload-pack=')) uploadPack = a.slice(14);
    else if (a === '--') { rest.push(...args.slice(i + 1)); break; }
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else rest.push(a);
  }
  const gitDir = findGitDir(ctx);
  const config = Config.loadSync(gitDir ?? path.join(ctx.cwd, '.git'), { global: true, env: ctx.env });
  let dest = rest.shift();
  const named = dest !== undefined;
  if (dest === undefined) {
    if (gitDir === null) throw fatal('No remote configured to list refs from.');
    dest = defaultRemoteName(config, currentBranch(ctx));
    if (config.get('remote', dest, 'url') === undefined) throw fatal('No remote configured to list refs from.');
  }
  // Outside a repository the global and command-line configuration still rewrite and police URLs.
  const remote = resolveRemote(config, dest);
  if (getUrl) {
    const out = new Output();
    out.text(`${remote.url}\n`);
    out.flush();
    return 0;
  }
  if (!named && !quiet) process.stderr.write(`From ${remote.url}\n`);
  // Inside a repository a relative path is taken from where git's setup goes (the work tree's top).
  const base = gitDir === null ? ctx.cwd : ctx.setupDir();
  checkProtocolAllowed(config, ctx.env, parseRemoteUrl(remote.url, base));
  const refs = await lsRemote(remote.url, {
    ...connectOptionsFromConfig(config, ctx.env),
    cwd: base, heads, tags,
    ...(uploadPack ?? remote.uploadPack ? { uploadPack: uploadPack ?? remote.uploadPack! } : {}),
  });
  const matches = refMatcher(rest);
  const out = new Output();
  let shown = 0;
  for (const ref of refs) {
    if ((heads || tags) && !((heads && ref.name.startsWith('refs/heads/')) || (tags && ref.name.startsWith('refs/tags/')))) continue;
    if (refsOnly && !ref.name.startsWith('refs/')) continue;
    if (!matches(ref.name)) continue;
    if (symref && ref.symrefTarget !== undefined) out.text(`ref: ${ref.symrefTarget}\t${ref.name}\n`);
    if (ref.oid !== null) {
      out.text(`${ref.oid}\t${ref.name}\n`);
      shown++;
    }
    if (ref.peeled !== undefined && !refsOnly) out.text(`${ref.peeled}\t${ref.name}^{}\n`);
  }
  out.flush();
  return exitCode && shown === 0 ? 2 : 0;
}

function missing(option: string): never {
  throw new UsageError(`option '${option}' requires a value`);
}

function findGitDir(ctx: CommandContext): string | null {
  try {
    const env = ctx.gitDir ? { ...ctx.env, GIT_DIR: path.resolve(ctx.cwd, ctx.gitDir) } : ctx.env;
    return discover(ctx.cwd, env).gitDir;
  } catch (e) {
    if (e instanceof GitError && e.code === 'not-a-repository') return null;
    throw e;
  }
}

function currentBranch(ctx: CommandContext): string | null {
  const symref = ctx.repository().refs.head().symref;
  return symref?.startsWith('refs/heads/') ? symref.slice(11) : null;
}
