// A connection to a Unix socket, or null when nothing accepts there (no file, a stale socket, a
// file that is no socket): the question serve asks before it replaces a socket file, and the one
// the upload-pack relay asks before it relays. Kept small: the relay loads it before anything else.
import net from 'node:net';

export function connectUnix(socketPath: string): Promise<net.Socket | null> {
  return new Promise(resolve => {
    const socket = net.connect(socketPath);
    const failed = () => {
      socket.destroy();
      resolve(null);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}
