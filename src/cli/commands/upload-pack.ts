// tsgit upload-pack [--stateless-rpc] [--advertise-refs] [--strict] [--timeout N] <dir>: a drop-in
// for git-upload-pack on stdin/stdout (git clone --upload-pack, ssh, behind http-backend), speaking
// the protocol version GIT_PROTOCOL asks for.
import { Repository } from '../../repository/repository.js';
import { enterRepo } from '../../server/enter-repo.js';
import { uploadPack } from '../../server/upload-pack.js';
import type { CommandContext } from '../context.js';
import { parseServiceOptions } from '../service-options.js';
import { streamSink } from '../../core/stream-sink.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Send objects packed back to git-fetch-pack',
  synopsis: ['[--[no-]strict] [--timeout=<n>] [--stateless-rpc] [--advertise-refs] <directory>'],
  options: [
    ['--stateless-rpc', 'quit after a single request/response exchange'],
    ['--advertise-refs', 'exit immediately after initial ref advertisement'],
    ['--[no-]strict', 'do not try <directory>/.git/ if <directory> is no Git directory'],
    ['--timeout=<n>', 'interrupt transfer after <n> seconds of inactivity'],
  ],
};

export default async function uploadPackCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let strict = false;
  // As git's upload-pack, a usage error is the usage alone.
  const { statelessRpc, advertiseRefs, timeout, dir } = parseServiceOptions(args, (a) => {
    if (a === '--strict') strict = true;
    else if (a === '--no-strict') strict = false;
    else return false;
    return true;
  }, { tooManyArguments: '', noDirectory: '' });
  const repo = new Repository(enterRepo(dir, strict, ctx.cwd), null);
  // What git's upload-pack says of damaged storage reaches the client's terminal through stderr;
  // it works from inside the git directory (enter_repo()), so it names the objects `./objects`.
  repo.warn = (text) => process.stderr.write(text);
  repo.shownObjectsDir = './objects';
  const abort = new AbortController();
  // A reader that went away (EPIPE) stops the pack being written; nothing is left to tell it.
  process.stdout.on('error', () => abort.abort());
  try {
    await uploadPack(repo, {
      input: process.stdin,
      output: streamSink(process.stdout, abort.signal),
      protocol: ctx.env.GIT_PROTOCOL,
      statelessRpc, advertiseRefs, timeout,
      signal: abort.signal,
      source: 'upload-pack stdin',
    });
  } catch (e) {
    // The reader is gone; like git dying of SIGPIPE, there is no one left to tell.
    if (abort.signal.aborted) return 141;
    throw e;
  } finally {
    repo.close();
    // Whatever the client still sends is not wanted; an open stdin would keep the process alive.
    process.stdin.destroy();
  }
  return 0;
}
