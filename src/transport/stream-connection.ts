// A stateful connection over one pair of byte streams: a child process's stdout/stdin (ssh, a
// local upload-pack) or a TCP socket (git://). Reads are pulled by the PacketReader, so a slow
// consumer (index-pack) holds the server back through the pipe rather than through our memory.
import type { Readable, Writable } from 'node:stream';
import { GitError } from '../core/errors.js';
import { PacketReader } from '../protocol/pkt-line.js';
import type { Connection, RequestBody } from './connection.js';

export interface StreamEnds {
  readonly name: string;
  readonly input: Readable;
  readonly output: Writable;
  /**
   * Resolves when the peer is gone; rejects with the reason when it failed (a process's exit
   * status, a socket error). Called at end of input and on close.
   */
  finished(): Promise<void>;
  /** Stops the peer at once. */
  kill(): void;
}

/** Bytes a peer may still send after we hang up before we stop listening and kill it. */
const MAX_DRAIN = 1 << 20;

export class StreamConnection implements Connection {
  readonly stateless = false;
  readonly reader: PacketReader;
  readonly name: string;
  private writeError: Error | null = null;
  private closed = false;
  /** One iterator over the input, shared by the reader and by close(), which drains what is left. */
  private readonly input: AsyncIterator<Buffer>;

  constructor(private readonly ends: StreamEnds) {
    this.name = ends.name;
    this.input = ends.input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    // An EPIPE on a server that hung up surfaces here, not as an unhandled 'error' event; the read
    // side then reports the more useful reason (exit status, ERR line).
    ends.output.on('error', (e) => { this.writeError ??= e; });
    this.reader = new PacketReader(this.chunks(), ends.name);
  }

  private async *chunks(): AsyncGenerator<Uint8Array> {
    try {
      for (let r = await this.input.next(); !r.done; r = await this.input.next()) yield r.value;
    } catch (e) {
      if (this.closed) return;
      // The peer's own failure (exit status, refused connection) explains more than a read error.
      await this.ends.finished();
      throw transportError(this.name, e);
    }
    // End of input: if the peer failed, its reason beats "stream ended while expecting ...".
    if (!this.closed) await this.ends.finished();
  }

  async send(body: RequestBody): Promise<PacketReader> {
    if (Buffer.isBuffer(body)) await this.write(body);
    else for await (const chunk of body) await this.write(chunk);
    return this.reader;
  }

  private async write(chunk: Uint8Array): Promise<void> {
    if (this.writeError) throw transportError(this.name, this.writeError);
    const output = this.ends.output;
    if (!output.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => { output.off('drain', done); output.off('close', done); output.off('error', done); resolve(); };
        output.on('drain', done).on('close', done).on('error', done);
      });
    }
    if (this.writeError) throw transportError(this.name, this.writeError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ends.output.end();
    // A process is not finished until its stdout is read to the end (a trailing flush, say).
    let drained = 0;
    try {
      for (let r = await this.input.next(); !r.done; r = await this.input.next()) {
        drained += r.value.length;
        if (drained > MAX_DRAIN) {
          this.ends.kill();
          break;
        }
      }
    } catch {
      // A read error after we are done: the peer's exit status below says whether it failed.
    }
    await this.ends.finished();
  }

  abort(): void {
    if (this.closed) return;
    this.closed = true;
    this.ends.kill();
  }
}

function transportError(name: string, cause: unknown): GitError {
  if (cause instanceof GitError) return cause;
  return new GitError('transport', 'io', `${name}: ${(cause as Error).message ?? String(cause)}`, { cause });
}
