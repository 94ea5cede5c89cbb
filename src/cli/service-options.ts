// The command line of upload-pack and receive-pack, which git gives the same options for the
// conversation (--stateless-rpc, --advertise-refs and its http-backend alias, --timeout) and the
// one directory; each command adds its own flags and git's usage messages of its own.
import { UsageError } from '../core/errors.js';

export interface ServiceOptions {
  statelessRpc: boolean;
  advertiseRefs: boolean;
  /** Seconds of inactivity before the conversation is given up; 0 for none. */
  timeout: number;
  dir: string;
}

/**
 * Reads `args`; `own` takes a flag of the command's own (false: not one). `usage` holds the
 * messages for a second directory and for none.
 */
export function parseServiceOptions(args: readonly string[], own: (arg: string) => boolean,
  usage: { tooManyArguments: string; noDirectory: string }): ServiceOptions {
  let statelessRpc = false, advertiseRefs = false, timeout = 0;
  let dir: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--stateless-rpc') statelessRpc = true;
    else if (a === '--advertise-refs' || a === '--http-backend-info-refs') advertiseRefs = true;
    else if (own(a)) continue;
    else if (a === '--timeout' || a.startsWith('--timeout=')) {
      const v = a === '--timeout' ? args[++i] : a.slice(10);
      if (v === undefined || !/^[0-9]+$/.test(v)) throw new UsageError(`--timeout needs a number of seconds`);
      timeout = Number(v);
    } else if (a === '--') {
      dir = args[++i] ?? null;
    } else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else if (dir === null) dir = a;
    else throw new UsageError(usage.tooManyArguments);
  }
  if (dir === null) throw new UsageError(usage.noDirectory);
  return { statelessRpc, advertiseRefs, timeout, dir };
}
