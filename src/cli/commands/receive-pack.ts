// tsgit receive-pack [--stateless-rpc] [--advertise-refs] [--timeout=<n>] <dir>: the server side
// of a push on stdin/stdout, a drop-in for git-receive-pack (git push --receive-pack='tsgit
// receive-pack', ssh, behind http-backend). Messages the client did not ask to get on the
// side-band go to stderr, as git's do; refused refs are reported to the client, not by the exit
// status, which is 0 unless the conversation itself failed.
import os from 'node:os';
import { Repository } from '../../repository/repository.js';
import { enterRepo } from '../../server/enter-repo.js';
import { receivePack } from '../../server/receive-pack/index.js';
import type { CommandContext } from '../context.js';
import { writeAll } from '../output.js';
import { parseServiceOptions } from '../service-options.js';
import { streamSink } from '../../core/stream-sink.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Receive what is pushed into the repository',
  synopsis: ['[--stateless-rpc] [--advertise-refs] [--timeout=<n>] <git-dir>'],
  options: [
    ['-q, --quiet', 'quiet'],
    ['--stateless-rpc', 'quit after a single request/response exchange'],
    ['--advertise-refs', 'exit immediately after the initial ref advertisement'],
    ['--timeout=<n>', 'interrupt the transfer after <n> seconds of inactivity'],
  ],
};

export default async function receivePackCommand(ctx: CommandContext, args: string[]): Promise<number> {
  const { statelessRpc, advertiseRefs, timeout, dir } = parseServiceOptions(args,
    (a) => a === '-q' || a === '--quiet',
    { tooManyArguments: 'too many arguments', noDirectory: 'you must specify a directory' });
  const repo = new Repository(enterRepo(dir, false, ctx.cwd), null);
  const abort = new AbortController();
  process.stdout.on('error', () => abort.abort());
  // An interrupted push leaves no quarantine behind: the abort, and the end of input it forces on a
  // stalled client, unwind and remove it.
  let signalled = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = os.constants.signals[signal];
    abort.abort();
    process.stdin.destroy();
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal).once('SIGHUP', onSignal);
  try {
    await receivePack(repo, {
      input: process.stdin,
      output: streamSink(process.stdout, abort.signal),
      protocol: ctx.env.GIT_PROTOCOL,
      statelessRpc, advertiseRefs,
      limits: { timeout },
      stderr: (text) => writeAll(2, Buffer.from(text, 'utf8')),
      env: ctx.env,
      signal: abort.signal,
      source: 'receive-pack stdin',
    });
  } catch (e) {
    // Killed, or the reader is gone (like git dying of SIGPIPE): no one is left to tell.
    if (abort.signal.aborted) return signalled ? 128 + signalled : 141;
    throw e;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal).off('SIGHUP', onSignal);
    repo.close();
    process.stdin.destroy();
  }
  return 0;
}
