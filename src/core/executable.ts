// The tsgit program of this package, for the transports that run a service as a child process
// (a local clone runs `tsgit upload-pack <dir>`, as git runs git-upload-pack): the same node
// binary, and bin/tsgit beside the compiled dist/.
import { fileURLToPath } from 'node:url';
import { ownFile } from './own-files.js';

export const TSGIT_EXECUTABLE = {
  command: process.execPath,
  args: [fileURLToPath(ownFile('../../bin/tsgit'))] as readonly string[],
};
