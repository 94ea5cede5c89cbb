// A worker's half of the HTTP handler's `authorize` for each ref update of a push: receive-pack
// runs in the worker and the embedder's callback in the server's process, so every update is one
// round trip over the frames (worker-frames.ts): the update out with an id ('a'), its verdict back
// ('v'). receive-pack awaits each verdict; nothing here times out, since the pool's request time
// (maxRequestTime) kills a worker whose server never answers, and a client that goes away has
// its worker killed the same way.
import type { PushCommand } from '../protocol/index.js';
import { FRAME_AUTHORIZE, frame, type WorkerAuthorize, type WorkerVerdict } from './worker-frames.js';

export class ServerAuthorize {
  private nextId = 1;
  private readonly waiting = new Map<number, (verdict: boolean | string) => void>();

  constructor(private readonly send: (bytes: Buffer) => void) {}

  /** The server's verdict on `update`: true allows it, false or a reason refuses it. */
  ask(update: PushCommand): Promise<boolean | string> {
    const id = this.nextId++;
    return new Promise(resolve => {
      this.waiting.set(id, resolve);
      this.send(frame(FRAME_AUTHORIZE, Buffer.from(JSON.stringify({ id, update } satisfies WorkerAuthorize))));
    });
  }

  /** A verdict from the server; one for no question waiting is dropped. */
  answer({ id, verdict }: WorkerVerdict): void {
    const resolve = this.waiting.get(id);
    if (!resolve) return;
    this.waiting.delete(id);
    resolve(verdict);
  }
}
