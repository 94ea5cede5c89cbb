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
// answer is matched to the oldest request still waiting. Answers are parsed as the bytes arrive,
// with no await per packet. The process inherits our stderr; closing its stdin tells it to exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { FLUSH_PKT, MAX_PKT_PAYLOAD, PktLineDecoder, pktLine, stripLf, writeLength, type Packet } from '../../protocol/pkt-line.js';
import { GitError } from '../../core/errors.js';
import type { FilterContext } from './run-command.js';
import { shellArgv } from './shell-command.js';

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
  private readonly decoder: PktLineDecoder;
  private readonly exited: Promise<void>;
  /** Answers being read, oldest first; packets that arrive before their reader wait in `early`. */
  private readonly readers: AnswerReader[] = [];
  private readonly early: Packet[] = [];
  private isBroken = false;
  private corked = false;
  private spawnError: NodeJS.ErrnoException | null = null;

  private constructor(readonly command: string, ctx: FilterContext) {
    const [file, args] = shellArgv(command);
    this.decoder = new PktLineDecoder(`filter process '${command}'`);
    this.child = spawn(file, args, { cwd: ctx.cwd, env: ctx.env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.exited = new Promise(resolve => this.child.once('close', () => resolve()));
    this.child.once('error', (e: NodeJS.ErrnoException) => { this.spawnError = e; this.breakOff(); });
    // A write to a process that has gone fails with EPIPE; the reading side reports it.
    this.child.stdin!.on('error', () => {});
    const out = this.child.stdout!;
    out.on('error', () => this.breakOff());
    out.on('end', () => this.breakOff());
    out.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  /**
   * Starts `command` and shakes hands (git's subprocess_start). null, with git's error lines
   * logged, when it cannot start or the handshake fails; a capability git does not know is
   * fatal, as in git.
   */
  static async start(command: string, ctx: FilterContext): Promise<FilterProcess | null> {
    const p = new FilterProcess(command, ctx);
    const failure = await p.handshake();
    if (failure === null) return p;
    await p.stop();
    if (failure instanceof GitError) throw failure;
    if (p.spawnError) {
      const why = p.spawnError.code === 'ENOENT' ? 'No such file or directory' : p.spawnError.message;
      ctx.log(`error: cannot run ${command}: ${why}\nerror: cannot fork to run subprocess '${command}'\n`);
    } else {
      ctx.log(`error: ${failure}\nerror: initialization for subprocess '${command}' failed\n`);
    }
    return null;
  }

  /** null when the handshake went through; else what went wrong. */
  private async handshake(): Promise<string | GitError | null> {
    this.send([pktLine('git-filter-client\n'), pktLine('version=2\n'), FLUSH_PKT]);
    const welcome = await this.readList();
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

    this.send([...CAPABILITIES.map(([name]) => pktLine(`capability=${name}\n`)), FLUSH_PKT]);
    const caps = await this.readList();
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

  /** Writes one file's request now and resolves with its answer (git's apply_multi_file_filter). */
  request(req: FilterRequest): Promise<FilterAnswer> {
    const head: Buffer[] = [pktLine(`command=${req.command}\n`), pktLine(Buffer.concat([PATHNAME, req.path, LF]))];
    if (req.ref !== undefined) head.push(pktLine(`ref=${req.ref}\n`));
    if (req.treeish !== undefined) head.push(pktLine(`treeish=${req.treeish}\n`));
    if (req.blob !== undefined) head.push(pktLine(`blob=${req.blob}\n`));
    if (req.canDelay) head.push(pktLine('can-delay=1\n'));
    head.push(FLUSH_PKT);
    return new Promise((resolve) => {
      // status list, then (after success) content up to a flush and a second status list
      let status = '';
      let phase: 'status' | 'content' | 'trailer' = 'status';
      const content: Buffer[] = [];
      this.expect({
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
          resolve(phase === 'trailer' && status === 'success' ? { status, content } : { status });
          return true;
        },
        broken: () => resolve({ status: '' }),
      });
      this.send(head, req.content);
    });
  }

  /** Writes a list_available_blobs request now; resolves with the ready paths (none: no more will come). */
  listAvailable(): Promise<AvailableAnswer> {
    return new Promise((resolve) => {
      const paths: Buffer[] = [];
      let status = '';
      let inStatus = false;
      this.expect({
        take: (p) => {
          if (ends(p)) {
            if (!inStatus) {
              inStatus = true;
              return false;
            }
            resolve({ paths, status });
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
        broken: () => resolve({ paths: [], status: '' }),
      });
      this.send([pktLine('command=list_available_blobs\n'), FLUSH_PKT]);
    });
  }

  /** Closes its stdin, which asks it to exit, and waits until it has (git at exit). */
  async close(): Promise<void> {
    this.child.stdin!.end();
    await this.exited;
  }

  /** Kills it (SIGTERM) and waits (git's subprocess_stop, after a broken conversation). */
  async stop(): Promise<void> {
    this.breakOff();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    this.child.stdin!.destroy();
    await this.exited;
  }

  /** The lines of one list up to a flush; `broken` when the conversation ended first. */
  private readList(): Promise<{ lines: Buffer[]; broken: boolean } | null> {
    return new Promise((resolve) => {
      const lines: Buffer[] = [];
      this.expect({
        take: (p) => {
          if (ends(p)) {
            resolve({ lines, broken: false });
            return true;
          }
          lines.push(stripLf((p as { payload: Buffer }).payload));
          return false;
        },
        broken: () => resolve(lines.length ? { lines, broken: true } : null),
      });
    });
  }

  private expect(reader: AnswerReader): void {
    if (this.isBroken) {
      reader.broken();
      return;
    }
    this.readers.push(reader);
    this.deliver();
  }

  private onData(chunk: Buffer): void {
    if (this.isBroken) return;
    try {
      this.decoder.push(chunk);
      for (let p = this.decoder.next(); p; p = this.decoder.next()) this.early.push(p);
    } catch {
      this.breakOff(); // a malformed pkt-line
      return;
    }
    this.deliver();
  }

  private deliver(): void {
    let k = 0;
    while (k < this.early.length && this.readers.length) {
      if (this.readers[0]!.take(this.early[k++]!)) this.readers.shift();
    }
    if (k) this.early.splice(0, k);
  }

  /** The process went away or spoke garbage: every answer still awaited is broken. */
  private breakOff(): void {
    if (this.isBroken) return;
    this.isBroken = true;
    this.early.length = 0;
    for (const r of this.readers.splice(0)) r.broken();
  }

  /** Writes `packets`, then `content` in packets and a flush when given, as one buffer. */
  private send(packets: Buffer[], content?: Uint8Array): void {
    if (this.isBroken) return;
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
    // The copy is what is queued: the caller's content may be a buffer it reuses. Requests sent
    // in one turn of the event loop go out in one write.
    const stdin = this.child.stdin!;
    if (!this.corked) {
      this.corked = true;
      stdin.cork();
      setImmediate(() => {
        this.corked = false;
        stdin.uncork();
      });
    }
    stdin.write(out);
  }
}
