// Concurrent connections, counted per client address, as git daemon's --max-connections counts
// them (daemon.c handle, kill_some_child): under the limit every connection is taken; at it, room
// is made by closing the newest connection of an address that holds more than one, so that one
// busy address cannot shut the others out, and if there is none the newcomer is refused. Two
// differences from git daemon, both so that no request is cut in the middle: only a connection
// not being served is closed to make room (one waiting in the queue, or an idle kept-alive HTTP
// connection), and only for a newcomer from an address with fewer connections (git closes one of
// the busiest address's even for another of its own, which gains nothing).
import type net from 'node:net';

export interface TrackedConnection {
  readonly socket: net.Socket;
  readonly address: string;
  /** A worker is answering it: it is not closed to make room. */
  serving: boolean;
  /** Closes it to make room; the transport may say why first (503, ERR). */
  evict: () => void;
}

export class ConnectionLimit {
  private readonly byAddress = new Map<string, TrackedConnection[]>();
  private count = 0;

  /** `max` connections at once; 0 means no limit. */
  constructor(readonly max: number) {}

  get open(): number {
    return this.count;
  }

  /** The connections counted now. */
  *connections(): IterableIterator<TrackedConnection> {
    for (const list of this.byAddress.values()) yield* list;
  }

  /** Counts `socket` until it closes; null when it is refused (the caller tells the client). */
  admit(socket: net.Socket): TrackedConnection | null {
    const address = socket.remoteAddress ?? '';
    if (this.max > 0 && this.count >= this.max && !this.makeRoom(address)) return null;
    const conn: TrackedConnection = { socket, address, serving: false, evict: () => socket.destroy() };
    let list = this.byAddress.get(address);
    if (!list) this.byAddress.set(address, list = []);
    list.push(conn);
    this.count++;
    socket.once('close', () => this.forget(conn));
    return conn;
  }

  /** Closes the newest connection not being served of the busiest address, if the newcomer's has fewer. */
  private makeRoom(newcomer: string): boolean {
    const mine = this.byAddress.get(newcomer)?.length ?? 0;
    let busiest: TrackedConnection[] | null = null;
    for (const list of this.byAddress.values()) if (!busiest || list.length > busiest.length) busiest = list;
    if (!busiest || busiest.length < 2 || busiest.length <= mine + 1) return false;
    for (let i = busiest.length - 1; i >= 0; i--) {
      const victim = busiest[i]!;
      if (victim.serving) continue;
      this.forget(victim);
      victim.evict();
      return true;
    }
    return false;
  }

  private forget(conn: TrackedConnection): void {
    const list = this.byAddress.get(conn.address);
    const i = list?.indexOf(conn) ?? -1;
    if (i < 0) return;
    list!.splice(i, 1);
    if (list!.length === 0) this.byAddress.delete(conn.address);
    this.count--;
  }
}
