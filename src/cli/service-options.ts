// The command line of upload-pack and receive-pack, which git gives the same options for the
// conversation (--stateless-rpc, --advertise-refs and its http-backend alias, --timeout) and the
// one directory; each command adds its own flags and git's usage messages of its own.
import { UsageError } from '../core/errors.js';
import { parseOptions } from './parse-options.js';

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
  const badTimeout = '--timeout needs a number of seconds';
  const rest = parseOptions(args, (name, value, inline) => {
    if (name === '--timeout') {
      const v = value();
      if (!/^[0-9]+$/.test(v)) throw new UsageError(badTimeout);
      timeout = Number(v);
      return true;
    }
    // The flags take no "=value".
    if (inline !== undefined) return false;
    if (name === '--stateless-rpc') statelessRpc = true;
    else if (name === '--advertise-refs' || name === '--http-backend-info-refs') advertiseRefs = true;
    else return own(name);
    return true;
  }, { missingValue: () => new UsageError(badTimeout) });
  if (rest.length > 1) throw new UsageError(usage.tooManyArguments);
  if (rest.length === 0) throw new UsageError(usage.noDirectory);
  return { statelessRpc, advertiseRefs, timeout, dir: rest[0]! };
}
