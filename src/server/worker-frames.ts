// The framing between the server and its service workers (worker-pool.ts, worker-main.ts),
// over the worker's stdin and stdout: each frame is a type byte, a 4-byte big-endian length and
// that many bytes. Server to worker: a request ('r', JSON), client bytes ('i'), end of client
// input ('z'), repositories to open before any request for them comes ('w', JSON: WorkerWarm),
// the verdict on a ref update ('v', JSON: WorkerVerdict). Worker to server: response bytes ('o'),
// diagnostics ('e', text), a ref update for the server's authorize ('a', JSON: WorkerAuthorize),
// and the end of the request ('x', JSON with the exit status and the worker's RSS), also of a
// handed-over connection's.
import { CorruptError } from '../core/errors.js';
import type { PushCommand } from '../protocol/index.js';
import type { ServiceLimits } from './limits.js';

export const FRAME_REQUEST = 0x72; // r
export const FRAME_INPUT = 0x69; // i
export const FRAME_INPUT_END = 0x7a; // z
export const FRAME_WARM = 0x77; // w
export const FRAME_OUTPUT = 0x6f; // o
export const FRAME_STDERR = 0x65; // e
export const FRAME_EXIT = 0x78; // x
export const FRAME_AUTHORIZE = 0x61; // a
export const FRAME_VERDICT = 0x76; // v

/** What the server asks a worker to run: a service (services.ts) and the options of `tsgit <service>`. */
export interface WorkerRequest {
  /** git's name of the service: 'upload-pack'. */
  service: string;
  gitDir: string;
  protocol?: string;
  statelessRpc?: boolean;
  /** The info/refs advertisement only. */
  advertiseRefs?: boolean;
  /** Seconds without client input before giving up; 0 waits forever. */
  timeout: number;
  limits: ServiceLimits;
  /** Ask the server about every ref update ('a' frames): set by the worker's pool for a job with an authorize. */
  authorizeUpdates?: boolean;
}

/**
 * A git:// connection handed to a worker with its socket (over the IPC channel, not the frames):
 * the request, the client bytes the server read past the request line (base64), and whether the
 * client had already finished sending (the server read its EOF, which the socket will not repeat).
 */
export interface WorkerHandOff {
  request: WorkerRequest;
  head: string;
  ended: boolean;
}

/** What a worker says over the IPC channel once it can take a connection. */
export const WORKER_READY = 'ready';

/** Repositories a worker opens while it has nothing to do (git directories). */
export interface WorkerWarm {
  gitDirs: string[];
  /** Only those it has open, and only if they changed on disk (their old packs are let go). */
  changedOnly?: boolean;
}

/** A ref update the worker's receive-pack asks the server to authorize; `id` is the verdict's. */
export interface WorkerAuthorize {
  id: number;
  update: PushCommand;
}

/** The server's answer: true allows the update, false or a reason refuses it (receive-pack's AuthorizeUpdate). */
export interface WorkerVerdict {
  id: number;
  verdict: boolean | string;
}

export interface WorkerExit {
  /** 0 served, 128 failed (as `tsgit upload-pack` would exit). */
  code: number;
  /** Why it failed: the message the client was sent (ERR) or would have been. */
  error?: string;
  /** The client went away before the answer was whole. */
  gone?: boolean;
  /** It was cut off for being idle (error says so). */
  timedOut?: boolean;
  /** Response bytes written, and what the service counted (wants, haves), for the access log. */
  sent: number;
  counts: Record<string, number>;
  /** The worker's resident set after the request, for recycling. */
  rss: number;
  /** Repositories it found changed on disk (a repack) and opened anew: other workers may too. */
  reopened: string[];
}

/** Control frames are small; a longer one means the stream is out of step. */
const MAX_CONTROL = 1024 * 1024;

export function frameHeader(type: number, length: number): Buffer {
  const h = Buffer.allocUnsafe(5);
  h[0] = type;
  h.writeUInt32BE(length, 1);
  return h;
}

/** One frame as one buffer (small payloads: one write instead of two). */
export function frame(type: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  return Buffer.concat([frameHeader(type, payload.length), payload]);
}

/**
 * Splits a byte stream into frames. Data frames ('i', 'o') are passed on in pieces as they arrive,
 * without copying; control frames are collected and passed whole.
 */
export class FrameDecoder {
  private header = Buffer.alloc(5);
  private headerHave = 0;
  private type = 0;
  private remaining = 0;
  private control: Buffer[] = [];

  constructor(
    private readonly source: string,
    private readonly onData: (type: number, bytes: Buffer) => void,
    private readonly onControl: (type: number, payload: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let p = 0;
    while (p < chunk.length) {
      if (this.headerHave < 5) {
        const n = Math.min(5 - this.headerHave, chunk.length - p);
        chunk.copy(this.header, this.headerHave, p, p + n);
        this.headerHave += n;
        p += n;
        if (this.headerHave < 5) return;
        this.type = this.header[0]!;
        this.remaining = this.header.readUInt32BE(1);
        if (!isData(this.type) && this.remaining > MAX_CONTROL) {
          throw new CorruptError('server', `${this.source}: control frame '${String.fromCharCode(this.type)}' of ${this.remaining} bytes`);
        }
        if (this.remaining === 0) this.finish();
        continue;
      }
      const n = Math.min(this.remaining, chunk.length - p);
      const piece = chunk.subarray(p, p + n);
      p += n;
      this.remaining -= n;
      if (isData(this.type)) this.onData(this.type, piece);
      else this.control.push(piece);
      if (this.remaining === 0) this.finish();
    }
  }

  private finish(): void {
    this.headerHave = 0;
    if (isData(this.type)) return;
    const payload = Buffer.concat(this.control);
    this.control = [];
    this.onControl(this.type, payload);
  }
}

function isData(type: number): boolean {
  return type === FRAME_INPUT || type === FRAME_OUTPUT;
}
