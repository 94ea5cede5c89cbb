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
 * Where a child that is tsgit itself (TSGIT_EXECUTABLE, a serve worker) finds $NODE_EXTRA_CA_CERTS.
 * Node 20 reads that bundle before any script runs, 90 ms of CPU on a Debian machine that sets it,
 * which a local clone or push would pay twice; the services never open an https connection. The
 * child puts it back before anything else runs (restoreNodeCaCerts), so tsgit's own https
 * (client/http-settings.ts) and every hook, filter or command it starts see it as it was.
 */
const SAVED_NODE_CA_CERTS = 'TSGIT_SAVED_NODE_EXTRA_CA_CERTS';

/** `env` for a child that is tsgit itself: $NODE_EXTRA_CA_CERTS kept aside, see SAVED_NODE_CA_CERTS. */
export function tsgitChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  if (out.NODE_EXTRA_CA_CERTS !== undefined) {
    out[SAVED_NODE_CA_CERTS] = out.NODE_EXTRA_CA_CERTS;
    delete out.NODE_EXTRA_CA_CERTS;
  }
  return out;
}

/** First thing in a tsgit process: $NODE_EXTRA_CA_CERTS back where the parent tsgit kept it aside. */
export function restoreNodeCaCerts(): void {
  const saved = process.env[SAVED_NODE_CA_CERTS];
  if (saved === undefined) return;
  process.env.NODE_EXTRA_CA_CERTS = saved;
  delete process.env[SAVED_NODE_CA_CERTS];
}
