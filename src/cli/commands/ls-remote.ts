// tsgit ls-remote [--heads] [--tags] [--refs] [--symref] [-q] [--exit-code] [--get-url]
//                 [--upload-pack=<exec>] [--sort=<key>] [<repository> [<patterns>...]]
// Prints what git prints: "<id>\t<ref>" per ref in the server's order (or sorted), peeled tags as
// "<ref>^{}", and with --symref a "ref: <target>\t<ref>" line before each symbolic ref.
import path from 'node:path';
import { lsRemote, refMatcher } from '../../client/ls-remote.js';
import { defaultRemote, remoteConfigWarnings, remoteGet } from '../../repository/remotes.js';
import { checkProtocolAllowed, connectOptionsFromConfig } from '../../client/transport-config.js';
import { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { discover } from '../../repository/discover.js';
import { parseRemoteUrl } from '../../transport/index.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import { parseOptions } from '../parse-options.js';
import { prereleaseSuffixes, versionCompare } from '../version-sort.js';
import type { CommandHelp } from '../help.js';
import { branchOf } from '../../refs/branch-name.js';

export const help: CommandHelp = {
  summary: 'List references in a remote repository',
  synopsis: ['[--heads] [--tags] [--refs] [--upload-pack=<exec>] [-q | --quiet] [--exit-code] [--get-url] [--symref] [<repository> [<patterns>...]]'],
  options: [
    ['-q, --quiet', 'do not print remote URL'],
    ['--upload-pack <exec>', 'path of git-upload-pack on the remote host'],
    ['-t, --tags', 'limit to tags'],
    ['-h, --heads', 'limit to heads'],
    ['--refs', 'do not show peeled tags'],
    ['--get-url', 'take url.<base>.insteadOf into account'],
    ['--exit-code', 'exit with exit code 2 if no matching refs are found'],
    ['--symref', 'show underlying ref in addition to the object pointed by it'],
    ['--sort <key>', 'field name to sort on (refname, version:refname, objectname)'],
  ],
};

export default async function lsRemoteCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let heads = false, tags = false, refsOnly = false, symref = false, quiet = false, exitCode = false, getUrl = false;
  let uploadPack: string | undefined;
  const sorting: string[] = [];
  const rest = parseOptions(args, (name, value) => {
    switch (name) {
      case '-h': case '--heads': heads = true; break;
      case '-t': case '--tags': tags = true; break;
      case '--refs': refsOnly = true; break;
      case '--symref': symref = true; break;
      case '-q': case '--quiet': quiet = true; break;
      case '--exit-code': exitCode = true; break;
      case '--get-url': getUrl = true; break;
      // git's ls-remote has no -u (clone's and fetch's do); --exec is its hidden old name.
      case '--upload-pack': case '--exec': uploadPack = value(); break;
      case '--sort': sorting.push(value()); break;
      case '--no-sort': sorting.length = 0; break;
      default: return false;
    }
    return true;
  });
  const gitDir = findGitDir(ctx);
  const config = Config.loadSync(gitDir ?? path.join(ctx.cwd, '.git'), { global: true, env: ctx.env });
  // git reads the suffixes when two names first differ, once.
  let suffixes: Buffer[] | undefined;
  const readSuffixes = (): Buffer[] => (suffixes ??= prereleaseSuffixes(config, (text) => process.stderr.write(text)));
  const order = sorting.length ? refOrder(sorting, gitDir !== null, readSuffixes) : null;
  // What git says as it reads the remotes, which ls-remote does once.
  for (const text of remoteConfigWarnings(config)) process.stderr.write(text);
  const dest = rest.shift();
  // Outside a repository the global and command-line configuration still name remotes, and
  // rewrite and police URLs; only the legacy remotes/ and branches/ files are not read.
  const commonDir = gitDir === null ? null : ctx.repository().commonDir;
  const remote = dest !== undefined ? remoteGet(config, commonDir, dest)
    : defaultRemote(config, commonDir, commonDir === null ? null : currentBranch(ctx));
  if (remote === null) throw fatal('No remote configured to list refs from.');
  // git lists the first URL.
  const url = remote.urls[0]!;
  if (getUrl) {
    const out = new Output();
    out.text(`${url}\n`);
    out.flush();
    return 0;
  }
  if (dest === undefined && !quiet) process.stderr.write(`From ${url}\n`);
  // Inside a repository a relative path is taken from where git's setup goes (the work tree's top).
  const base = gitDir === null ? ctx.cwd : ctx.setupDir();
  checkProtocolAllowed(config, ctx.env, parseRemoteUrl(url, base));
  const refs = await lsRemote(url, {
    ...connectOptionsFromConfig(config, ctx.env),
    cwd: base, heads, tags,
    ...(uploadPack ?? remote.uploadPack ? { uploadPack: uploadPack ?? remote.uploadPack! } : {}),
  });
  const matches = refMatcher(rest);
  // As git lists them: each ref, its peeled value as a ref of its own ("<ref>^{}", which the
  // patterns must match by that name), in the server's order unless sorted.
  const listed: Listed[] = [];
  for (const ref of refs) {
    if ((heads || tags) && !((heads && ref.name.startsWith('refs/heads/')) || (tags && ref.name.startsWith('refs/tags/')))) continue;
    if (refsOnly && !ref.name.startsWith('refs/')) continue;
    if (matches(ref.name)) listed.push({ name: ref.name, oid: ref.oid, ...(ref.symrefTarget !== undefined ? { symref: ref.symrefTarget } : {}) });
    if (ref.peeled !== undefined && !refsOnly && matches(`${ref.name}^{}`)) listed.push({ name: `${ref.name}^{}`, oid: ref.peeled });
  }
  if (order) listed.sort(order);
  const out = new Output();
  let shown = 0;
  for (const ref of listed) {
    if (symref && ref.symref !== undefined) out.text(`ref: ${ref.symref}\t${ref.name}\n`);
    // An unborn symbolic ref has a target and no value.
    if (ref.oid === null) continue;
    out.text(`${ref.oid}\t${ref.name}\n`);
    shown++;
  }
  out.flush();
  return exitCode && shown === 0 ? 2 : 0;
}

interface Listed {
  name: string;
  oid: string | null;
  symref?: string;
}

/**
 * git's ref sorting for --sort=<key>: refname, version:refname (v:refname, with the pre-release
 * `suffixes`) or objectname (in a repository only, as git), "-" before a key reversing it; the
 * last key given decides first, the others break its ties.
 */
function refOrder(keys: readonly string[], inRepository: boolean, suffixes: () => readonly Buffer[]): (a: Listed, b: Listed) => number {
  // Names compare as bytes, each encoded once rather than in every comparison of the sort.
  const encoded = new Map<Listed, Buffer>();
  const bytes = (l: Listed): Buffer => {
    let b = encoded.get(l);
    if (!b) encoded.set(l, b = Buffer.from(l.name));
    return b;
  };
  const compares = keys.map((spec) => {
    const reverse = spec.startsWith('-');
    const key = reverse ? spec.slice(1) : spec;
    let compare: (a: Listed, b: Listed) => number;
    if (key === 'refname') compare = (a, b) => Buffer.compare(bytes(a), bytes(b));
    else if (key === 'version:refname' || key === 'v:refname') compare = (a, b) => versionCompare(bytes(a), bytes(b), suffixes);
    else if (key === 'objectname') {
      // git reads this field from the object database, and so wants one, though the id is at hand.
      if (!inRepository) throw fatal(`not a git repository, but the field '${key}' requires access to object data`);
      compare = (a, b) => ((a.oid ?? '') < (b.oid ?? '') ? -1 : (a.oid ?? '') > (b.oid ?? '') ? 1 : 0);
    } else throw new GitError('cli', 'unsupported', `tsgit ls-remote sorts by refname, version:refname or objectname, not by '${key}'`);
    return reverse ? (a: Listed, b: Listed) => compare(b, a) : compare;
  }).reverse();
  return (a, b) => {
    for (const compare of compares) {
      const d = compare(a, b);
      if (d !== 0) return d;
    }
    return 0;
  };
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
  return branchOf(symref);
}
