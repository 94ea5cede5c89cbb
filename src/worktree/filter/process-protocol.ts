// git's long-running filter process protocol, version 2 (Documentation/technical/
// long-running-process-protocol, gitattributes(5) "Long Running Filter Process"; git's
// sub-process.c and convert.c apply_multi_file_filter). Everything is pkt-lines:
//
//   handshake   > git-filter-client, version=2, flush      < git-filter-server, version=2, flush
//               > capability=clean|smudge|delay..., flush  < the capabilities it has, flush
//   a file      > command=smudge|clean, pathname=<path>, [ref= treeish= blob=] [can-delay=1], flush,
//                 the content in packets, flush
//               < status=success, flush, the content, flush, [status=...], flush
//               < status=delayed, flush              (only after can-delay=1)
//               < status=error|abort, flush
//   delayed     > command=list_available_blobs, flush   < pathname=<path>..., flush, status=success, flush
//               then each listed path is asked for again, with empty content.
//
// The last `status=` of a list wins, and a list may be empty (the status stays as it was). The
// filter answers requests one after another, in order; so requests may be written before the
// earlier ones are answered (the caller decides when that is what git would have sent), and each
// answer is matched to the oldest request still waiting. The process inherits our stderr; closing
// its stdin tells it to exit.
//
// The conversation is synchronous, as git's is: a request is written with writeSync and its answer
// read with a blocking readSync, on pipes that block (blocking-pipes.ts). Through Node's streams
// every message cost an event-loop turn, a stream write, a promise and a callback, which added up
// to more CPU than git-lfs's own on a checkout of 2,000 files. A request written ahead of the
// answers before it must not deadlock: were the filter blocked writing a large answer that we do
// not read while we are blocked writing a request it does not read, neither would go on. So bytes
// written ahead of unread answers are kept under a budget that fits in any pipe's buffer (one
// page, the least Linux gives a pipe); past it, the answers waiting are read first and kept.
// Requests are gathered and written together when an answer is wanted or the budget is reached
// (then answers are read until half of it is free): every write wakes the filter, and costs us a
// system call, which for 4,000 small messages was a quarter of the checkout's own CPU.
// This blocks the event loop while a filter works, as git's checkout waits for it.
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { FLUSH_PKT, MAX_PKT_LENGTH, MAX_PKT_PAYLOAD, PktLineDecoder, pktLine, stripLf, writeLength, type Packet } from '../../protocol/pkt-line.js';
import { GitError } from '../../core/errors.js';
import { writeAllOf } from '../../core/write-exactly.js';
import { spawnWithBlockingPipes } from './blocking-pipes.js';
import type { FilterContext } from './run-command.js';
import { shellArgv } from '../../core/shell.js';

export const CAP_CLEAN = 1, CAP_SMUDGE = 2, CAP_DELAY = 4;
const CAPABILITIES: [string, number][] = [['clean', CAP_CLEAN], ['smudge', CAP_SMUDGE], ['delay', CAP_DELAY]];

export interface FilterRequest {
  command: 'smudge' | 'clean';
  path: Uint8Array;
  /** git's checkout metadata (the ref, the commit or tree, the blob), sent when known. */
  ref?: string;
  treeish?: string;
  blob?: string;
  /** Empty when asking again for a delayed file; copied before request() returns. */
  content: Uint8Array;
  canDelay: boolean;
}

/**
 * The filter's answer. `status` is the last status it sent: 'success' with the content,
 * 'delayed', 'error', 'abort', or anything else, including '' when the conversation broke
 * (the process died, a malformed packet), for which the process must be stopped.
 */
export type FilterAnswer = { status: 'success'; content: Buffer[] } | { status: string; content?: undefined };

export interface AvailableAnswer {
  paths: Buffer[];
  status: string;
}

/** Takes the packets of one answer; returns true on the last one. */
interface AnswerReader {
  take(p: Packet): boolean;
  /** The conversation broke before the answer was complete. */
  broken(): void;
}

/** An answer to be read: `value` is final once `done`. */
export interface Ticket<T> {
  done: boolean;
  value: T;
}

/** Request bytes that may be written ahead of unread answers: one page, the least a pipe holds. */
const WRITE_AHEAD = 4096;

const LF = Buffer.from('\n');
const PATHNAME = Buffer.from('pathname=');

/** A flush, delim, or empty packet ends a list (git's packet_read_line returns NULL for all). */
const ends = (p: Packet): boolean => p.type !== 'data' || p.payload.length === 0;

/** The `status=` value of a list line, or null. */
function statusOf(p: Packet & { type: 'data' }): string | null {
  const line = stripLf(p.payload);
  return line.length >= 7 && line.toString('latin1', 0, 7) === 'status=' ? line.toString('utf8', 7) : null;
}

export class FilterProcess {
  /** What the process said it can do (CAP_*). */
  capabilities = 0;
  private readonly child: ChildProcess;
  private readonly input: number;
  private readonly output: number;
  private readonly notStarted: boolean;
  private readonly decoder: PktLineDecoder;
  private readonly exited: Promise<void>;
  /** Answers not yet read, oldest first, with the size of each one's request. */
  private readonly waiting: { reader: AnswerReader; size: number }[] = [];
  /** Bytes of requests whose answers are not read yet, written or not. */
  private ahead = 0;
  /** Requests not written yet. */
  private readonly unsent: Buffer[] = [];
  private isBroken = false;
  private inputClosed = false;
  private outputClosed = false;
  private readonly readBuffer = Buffer.allocUnsafe(MAX_PKT_LENGTH);

  private constructor(readonly command: string, ctx: FilterContext) {
    const { command: file, args } = shellArgv(command);
    this.decoder = new PktLineDecoder(`filter process '${command}'`);
    const started = spawnWithBlockingPipes(file, args, { cwd: ctx.cwd, env: ctx.env });
    this.child = started.child;
    this.input = started.input;
    this.output = started.output;
    this.notStarted = started.notStarted;
    this.exited = new Promise(resolve => this.child.once('close', () => resolve()));
  }

  /**
   * Starts `command` and writes the greeting of the handshake, without waiting for the process:
   * its own start (git-lfs runs git commands before it answers) overlaps whatever the caller does
   * until handshake().
   */
  static launch(command: string, ctx: FilterContext): FilterProcess {
    const p = new FilterProcess(command, ctx);
    p.write([pktLine('git-filter-client\n'), pktLine('version=2\n'), FLUSH_PKT]);
    return p;
  }

  /**
   * Starts `command` and shakes hands (git's subprocess_start). null, with git's error lines
   * logged, when it cannot start or the handshake fails; a capability git does not know is
   * fatal, as in git. The process that failed is being stopped: `stopping` has it.
   */
  static start(command: string, ctx: FilterContext, stopping: Promise<void>[]): FilterProcess | null {
    return FilterProcess.launch(command, ctx).finishStart(ctx, stopping);
  }

  /** The rest of start() for a launched process. */
  finishStart(ctx: FilterContext, stopping: Promise<void>[]): FilterProcess | null {
    const failure = this.handshake();
    if (failure === null) return this;
    stopping.push(this.stop());
    if (failure instanceof GitError) throw failure;
    if (this.notStarted) {
      ctx.log(`error: cannot run ${this.command}: No such file or directory\nerror: cannot fork to run subprocess '${this.command}'\n`);
    } else {
      ctx.log(`error: ${failure}\nerror: initialization for subprocess '${this.command}' failed\n`);
    }
    return null;
  }

  /** null when the handshake went through; else what went wrong. The greeting is written already. */
  private handshake(): string | GitError | null {
    const welcome = this.answer(this.expectList());
    const shown = (line: Buffer | undefined): string => line?.toString('utf8') ?? '<flush packet>';
    if (welcome === null || welcome.broken) {
      const read = welcome?.lines.length ?? 0;
      return `could not read ${read === 0 ? 'greeting' : read === 1 ? 'version' : 'version flush'} from subprocess '${this.command}'`;
    }
    const [greeting, version, extra] = welcome.lines;
    if (greeting?.toString('latin1') !== 'git-filter-server') return `Unexpected line '${shown(greeting)}', expected git-filter-server`;
    const v = version?.toString('latin1');
    if (v === undefined || !/^version=-?\d+$/.test(v)) return `Unexpected line '${shown(version)}', expected version`;
    if (extra) return `Unexpected line '${shown(extra)}', expected flush`;
    if (v !== 'version=2') return `Version ${v.slice(8)} not supported`;

    this.write([...CAPABILITIES.map(([name]) => pktLine(`capability=${name}\n`)), FLUSH_PKT]);
    const caps = this.answer(this.expectList());
    if (caps === null || caps.broken) return `could not read capabilities from subprocess '${this.command}'`;
    for (const line of caps.lines) {
      const text = line.toString('utf8');
      if (!text.startsWith('capability=')) continue;
      const cap = CAPABILITIES.find(([name]) => name === text.slice(11));
      if (!cap) return new GitError('worktree', 'filter-capability', `subprocess '${this.command}' requested unsupported capability '${text.slice(11)}'`);
      this.capabilities |= cap[1];
    }
    return null;
  }

  /** Writes one file's request (git's apply_multi_file_filter); answer() reads what it got. */
  request(req: FilterRequest): Ticket<FilterAnswer> {
    const head: Buffer[] = [pktLine(`command=${req.command}\n`), pktLine(Buffer.concat([PATHNAME, req.path, LF]))];
    if (req.ref !== undefined) head.push(pktLine(`ref=${req.ref}\n`));
    if (req.treeish !== undefined) head.push(pktLine(`treeish=${req.treeish}\n`));
    if (req.blob !== undefined) head.push(pktLine(`blob=${req.blob}\n`));
    if (req.canDelay) head.push(pktLine('can-delay=1\n'));
    head.push(FLUSH_PKT);
    // status list, then (after success) content up to a flush and a second status list
    let status = '';
    let phase: 'status' | 'content' | 'trailer' = 'status';
    const content: Buffer[] = [];
    const ticket: Ticket<FilterAnswer> = { done: false, value: { status: '' } };
    const finish = (value: FilterAnswer): true => {
      ticket.done = true;
      ticket.value = value;
      return true;
    };
    this.send({
      take: (p) => {
        if (phase === 'content') {
          if (ends(p)) phase = 'trailer';
          else content.push((p as { payload: Buffer }).payload);
          return false;
        }
        if (!ends(p)) {
          status = statusOf(p as Packet & { type: 'data' }) ?? status;
          return false;
        }
        if (phase === 'status' && status === 'success') {
          phase = 'content';
          return false;
        }
        return finish(phase === 'trailer' && status === 'success' ? { status, content } : { status });
      },
      broken: () => finish({ status: '' }),
    }, head, req.content);
    return ticket;
  }

  /** Writes a list_available_blobs request; its answer has the ready paths (none: no more will come). */
  listAvailable(): Ticket<AvailableAnswer> {
    const paths: Buffer[] = [];
    let status = '';
    let inStatus = false;
    const ticket: Ticket<AvailableAnswer> = { done: false, value: { paths, status: '' } };
    this.send({
      take: (p) => {
        if (ends(p)) {
          if (!inStatus) {
            inStatus = true;
            return false;
          }
          ticket.done = true;
          ticket.value = { paths, status };
          return true;
        }
        const data = p as Packet & { type: 'data' };
        if (inStatus) status = statusOf(data) ?? status;
        else {
          const line = stripLf(data.payload);
          if (line.subarray(0, PATHNAME.length).equals(PATHNAME)) paths.push(Buffer.from(line.subarray(PATHNAME.length)));
        }
        return false;
      },
      broken: () => {
        ticket.done = true;
        ticket.value = { paths: [], status: '' };
      },
    }, [pktLine('command=list_available_blobs\n'), FLUSH_PKT]);
    return ticket;
  }

  /** The answer of `ticket`, read now if it has not come yet (and every answer before it). */
  answer<T>(ticket: Ticket<T>): T {
    if (!ticket.done) this.flush();
    while (!ticket.done) this.readSome();
    return ticket.value;
  }

  /** Closes its stdin, which asks it to exit, and waits until it has (git at exit). */
  async close(): Promise<void> {
    this.flush();
    this.closeInput();
    await this.exited;
    this.closeOutput();
  }

  /** Kills it (SIGTERM) and waits (git's subprocess_stop, after a broken conversation). */
  async stop(): Promise<void> {
    this.breakOff();
    // A child that never started has no pid, and Node would signal pid 0: our own process group.
    if (!this.notStarted && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    this.closeInput();
    this.closeOutput();
    await this.exited;
  }

  /** The lines of one list up to a flush; `broken` when the conversation ended first, null when before a line. */
  private expectList(): Ticket<{ lines: Buffer[]; broken: boolean } | null> {
    const lines: Buffer[] = [];
    const ticket: Ticket<{ lines: Buffer[]; broken: boolean } | null> = { done: false, value: null };
    this.expect({
      take: (p) => {
        if (!ends(p)) {
          lines.push(stripLf((p as { payload: Buffer }).payload));
          return false;
        }
        ticket.done = true;
        ticket.value = { lines, broken: false };
        return true;
      },
      broken: () => {
        ticket.done = true;
        ticket.value = lines.length ? { lines, broken: true } : null;
      },
    }, 0);
    return ticket;
  }

  /** Writes a request whose answer `reader` takes, reading answers first while too much is ahead. */
  private send(reader: AnswerReader, packets: Buffer[], content?: Uint8Array): void {
    const out = this.encode(packets, content);
    if (this.waiting.length && this.ahead + out.length > WRITE_AHEAD) {
      this.flush();
      while (this.waiting.length && this.ahead + out.length > WRITE_AHEAD / 2) this.readSome();
    }
    this.expect(reader, out.length);
    if (!this.isBroken) this.unsent.push(out);
  }

  private expect(reader: AnswerReader, size: number): void {
    if (this.isBroken) {
      reader.broken();
      return;
    }
    this.waiting.push({ reader, size });
    this.ahead += size;
  }

  /** Waits for the next bytes from the process and gives their packets to the answers waiting. */
  private readSome(): void {
    if (this.isBroken) return;
    let n: number;
    try {
      n = fs.readSync(this.output, this.readBuffer, 0, this.readBuffer.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EINTR') return;
      n = 0;
    }
    if (n === 0) {
      this.breakOff();
      return;
    }
    // A copy the size of what came: packets are views of it, and content packets are kept.
    this.decoder.push(Buffer.from(this.readBuffer.subarray(0, n)));
    try {
      for (let p = this.decoder.next(); p; p = this.decoder.next()) {
        const head = this.waiting[0];
        if (!head) throw new Error('unexpected packet');
        if (head.reader.take(p)) {
          this.waiting.shift();
          this.ahead -= head.size;
        }
      }
    } catch {
      this.breakOff(); // a malformed pkt-line, or one nobody asked for
    }
  }

  /** The process went away or spoke garbage: every answer still awaited is broken. */
  private breakOff(): void {
    if (this.isBroken) return;
    this.isBroken = true;
    this.ahead = 0;
    this.unsent.length = 0;
    for (const w of this.waiting.splice(0)) w.reader.broken();
  }

  /** `packets`, then `content` in packets and a flush when given, as one buffer. */
  private encode(packets: Buffer[], content?: Uint8Array): Buffer {
    let size = 0;
    for (const p of packets) size += p.length;
    if (content) size += content.length + 4 * Math.ceil(content.length / MAX_PKT_PAYLOAD) + 4;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (const p of packets) at += p.copy(out, at);
    if (content) {
      for (let off = 0; off < content.length; off += MAX_PKT_PAYLOAD) {
        const n = Math.min(MAX_PKT_PAYLOAD, content.length - off);
        writeLength(out, at, n + 4);
        out.set(content.subarray(off, off + n), at + 4);
        at += n + 4;
      }
      at += FLUSH_PKT.copy(out, at);
    }
    return out;
  }

  /** Writes the requests gathered so far. */
  flush(): void {
    if (!this.unsent.length) return;
    const out = this.unsent.splice(0);
    this.write(out);
  }

  /** Writes all of `packets` now, gathered (not copied together); a process that has gone breaks the conversation. */
  private write(packets: Buffer[]): void {
    if (this.isBroken || this.inputClosed) return;
    try {
      writeAllOf(this.input, packets);
    } catch {
      this.breakOff(); // EPIPE: it exited; what it said before is lost with the conversation, as in git
    }
  }

  private closeInput(): void {
    if (this.inputClosed) return;
    this.inputClosed = true;
    fs.closeSync(this.input);
  }

  private closeOutput(): void {
    if (this.outputClosed) return;
    this.outputClosed = true;
    fs.closeSync(this.output);
  }
}
