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
// The last `status=` of a list wins, and a list may be empty (the status stays as it was). One
// request is answered before the next is sent. The process inherits our stderr; closing its
// stdin tells it to exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { FLUSH_PKT, MAX_PKT_PAYLOAD, PacketReader, pktLine, stripLf, writeLength } from '../../protocol/pkt-line.js';
import { GitError } from '../../core/errors.js';
import type { FilterContext } from './run-command.js';
import { shellArgv } from './shell-command.js';

export const CAP_CLEAN = 1, CAP_SMUDGE = 2, CAP_DELAY = 4;
const CAPABILITIES: [string, number][] = [['clean', CAP_CLEAN], ['smudge', CAP_SMUDGE], ['delay', CAP_DELAY]];

export interface FilterRequest {
  command: 'smudge' | 'clean';
  path: Uint8Array;
  /** git's checkout metadata (the branch, the commit or tree, the blob), sent when known. */
  ref?: string;
  treeish?: string;
  blob?: string;
  /** Empty when asking again for a delayed file. */
  content: Uint8Array;
  canDelay: boolean;
}

/**
 * The filter's answer. `status` is the last status it sent: 'success' with the content,
 * 'delayed', 'error', 'abort', or anything else, including '' when the conversation broke
 * (the process died, a malformed packet), for which the process must be stopped.
 */
export type FilterAnswer = { status: 'success'; content: Buffer[] } | { status: string; content?: undefined };

/** The conversation broke: the caller stops the process. */
class ProtocolBroken extends Error {}

const LF = Buffer.from('\n');
const PATHNAME = Buffer.from('pathname=');

export class FilterProcess {
  /** What the process said it can do (CAP_*). */
  capabilities = 0;
  private readonly child: ChildProcess;
  private readonly packets: PacketReader;
  private readonly exited: Promise<void>;
  private spawnError: NodeJS.ErrnoException | null = null;

  private constructor(readonly command: string, ctx: FilterContext) {
    const [file, args] = shellArgv(command);
    this.child = spawn(file, args, { cwd: ctx.cwd, env: ctx.env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.exited = new Promise(resolve => this.child.once('close', () => resolve()));
    this.child.once('error', (e: NodeJS.ErrnoException) => { this.spawnError = e; });
    // A write to a process that has gone fails with EPIPE; the read that follows reports it.
    this.child.stdin!.on('error', () => {});
    this.child.stdout!.on('error', () => {});
    this.packets = new PacketReader(this.child.stdout!, `filter process '${command}'`);
  }

  /**
   * Starts `command` and shakes hands (git's subprocess_start). null, with git's error lines
   * logged, when it cannot start or the handshake fails; a capability git does not know is
   * fatal, as in git.
   */
  static async start(command: string, ctx: FilterContext): Promise<FilterProcess | null> {
    const p = new FilterProcess(command, ctx);
    try {
      await p.handshake();
      return p;
    } catch (e) {
      if (!(e instanceof ProtocolBroken)) {
        await p.stop();
        throw e;
      }
      if (p.spawnError) {
        const why = p.spawnError.code === 'ENOENT' ? 'No such file or directory' : p.spawnError.message;
        ctx.log(`error: cannot run ${command}: ${why}\nerror: cannot fork to run subprocess '${command}'\n`);
      } else {
        ctx.log(`error: ${e.message}\nerror: initialization for subprocess '${command}' failed\n`);
      }
      await p.stop();
      return null;
    }
  }

  private async handshake(): Promise<void> {
    this.send([pktLine('git-filter-client\n'), pktLine('version=2\n'), FLUSH_PKT]);
    const greeting = await this.readLine(`could not read greeting from subprocess '${this.command}'`);
    if (greeting?.toString('latin1') !== 'git-filter-server') {
      throw new ProtocolBroken(`Unexpected line '${greeting?.toString('utf8') ?? '<flush packet>'}', expected git-filter-server`);
    }
    const version = await this.readLine(`could not read version from subprocess '${this.command}'`);
    const v = version?.toString('latin1');
    if (v === undefined || !/^version=-?\d+$/.test(v)) {
      throw new ProtocolBroken(`Unexpected line '${version?.toString('utf8') ?? '<flush packet>'}', expected version`);
    }
    const flush = await this.readLine(`could not read version flush from subprocess '${this.command}'`);
    if (flush) throw new ProtocolBroken(`Unexpected line '${flush.toString('utf8')}', expected flush`);
    if (v !== 'version=2') throw new ProtocolBroken(`Version ${v.slice(8)} not supported`);

    this.send([...CAPABILITIES.map(([name]) => pktLine(`capability=${name}\n`)), FLUSH_PKT]);
    for (;;) {
      const line = await this.readLine(`could not read capabilities from subprocess '${this.command}'`);
      if (!line) break;
      const text = line.toString('utf8');
      if (!text.startsWith('capability=')) continue;
      const cap = CAPABILITIES.find(([name]) => name === text.slice(11));
      if (!cap) throw new GitError('worktree', 'filter-capability', `subprocess '${this.command}' requested unsupported capability '${text.slice(11)}'`);
      this.capabilities |= cap[1];
    }
  }

  /** Sends one file and reads the answer (git's apply_multi_file_filter). */
  async request(req: FilterRequest): Promise<FilterAnswer> {
    const head: Buffer[] = [pktLine(`command=${req.command}\n`), pktLine(Buffer.concat([PATHNAME, req.path, LF]))];
    if (req.ref !== undefined) head.push(pktLine(`ref=${req.ref}\n`));
    if (req.treeish !== undefined) head.push(pktLine(`treeish=${req.treeish}\n`));
    if (req.blob !== undefined) head.push(pktLine(`blob=${req.blob}\n`));
    if (req.canDelay) head.push(pktLine('can-delay=1\n'));
    head.push(FLUSH_PKT);
    this.send(head, req.content);
    try {
      let status = await this.readStatus('');
      if (status !== 'success') return { status };
      const content = await this.readContent();
      status = await this.readStatus(status);
      return status === 'success' ? { status, content } : { status };
    } catch (e) {
      if (e instanceof ProtocolBroken) return { status: '' };
      throw e;
    }
  }

  /** The delayed paths that are ready now (none: no more will come), and the filter's status. */
  async listAvailable(): Promise<{ paths: Buffer[]; status: string }> {
    this.send([pktLine('command=list_available_blobs\n'), FLUSH_PKT]);
    const paths: Buffer[] = [];
    try {
      for (;;) {
        const line = await this.readLine('list_available_blobs');
        if (!line) break;
        if (line.subarray(0, PATHNAME.length).equals(PATHNAME)) paths.push(Buffer.from(line.subarray(PATHNAME.length)));
      }
      return { paths, status: await this.readStatus('') };
    } catch (e) {
      if (e instanceof ProtocolBroken) return { paths: [], status: '' };
      throw e;
    }
  }

  /** Closes its stdin, which asks it to exit, and waits until it has (git at exit). */
  async close(): Promise<void> {
    this.child.stdin!.end();
    await this.exited;
  }

  /** Kills it (SIGTERM) and waits (git's subprocess_stop, after a broken conversation). */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    this.child.stdin!.destroy();
    await this.exited;
  }

  /** Writes `packets`, then `content` in packets and a flush when given, as one buffer. */
  private send(packets: Buffer[], content?: Uint8Array): void {
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
    // The copy is what is queued: the caller's content may be a buffer it reuses.
    this.child.stdin!.write(out);
  }

  /** A data packet without its LF, or null for a flush (or delim, or an empty packet, as git reads them). */
  private async readLine(what: string): Promise<Buffer | null> {
    let p;
    try {
      p = await this.packets.read();
    } catch (e) {
      throw new ProtocolBroken(`${what}: ${(e as Error).message}`);
    }
    if (!p) throw new ProtocolBroken(what);
    if (p.type !== 'data' || p.payload.length === 0) return null;
    return stripLf(p.payload);
  }

  /** A list of key=value lines up to a flush: the last status= in it, else `current` (subprocess_read_status). */
  private async readStatus(current: string): Promise<string> {
    for (let line = await this.readLine('status'); line; line = await this.readLine('status')) {
      const text = line.toString('utf8');
      if (text.startsWith('status=')) current = text.slice(7);
    }
    return current;
  }

  /** Content packets up to a flush (read_packetized_to_strbuf). */
  private async readContent(): Promise<Buffer[]> {
    const chunks: Buffer[] = [];
    for (;;) {
      let p;
      try {
        p = await this.packets.read();
      } catch (e) {
        throw new ProtocolBroken((e as Error).message);
      }
      if (!p) throw new ProtocolBroken('content');
      if (p.type !== 'data' || p.payload.length === 0) return chunks;
      chunks.push(p.payload);
    }
  }
}
