// The tsgit program of this package, for the transports that run a service as a child process
// (a local clone runs `tsgit upload-pack <dir>`, as git runs git-upload-pack): the same node
// binary, and bin/tsgit beside the compiled dist/.
import { fileURLToPath } from 'node:url';
import { ownFile } from './own-files.js';

export const TSGIT_EXECUTABLE = {
  command: process.execPath,
  args: [fileURLToPath(ownFile('../../bin/tsgit'))] as readonly string[],
};

/**
 * Where a tsgit child started through TSGIT_EXECUTABLE finds $NODE_EXTRA_CA_CERTS. Node 20 reads
 * that bundle before any script runs, 90 ms of CPU on a Debian machine that sets it, which a local
 * clone or push would pay twice; the services never open an https connection. bin/tsgit puts it
 * back before anything else runs, so tsgit's own https (client/http-settings.ts) and every hook,
 * filter or command the child starts see it as it was.
 */
export const SAVED_NODE_CA_CERTS = 'TSGIT_SAVED_NODE_EXTRA_CA_CERTS';

/** `env` for a child that is tsgit itself: $NODE_EXTRA_CA_CERTS kept aside, see SAVED_NODE_CA_CERTS. */
export function tsgitChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  if (out.NODE_EXTRA_CA_CERTS !== undefined) {
    out[SAVED_NODE_CA_CERTS] = out.NODE_EXTRA_CA_CERTS;
    delete out.NODE_EXTRA_CA_CERTS;
  }
  return out;
}
