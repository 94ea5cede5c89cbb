// The filters of one checkout: single-file commands run per file, long-running processes started
// once per command and kept until the checkout ends (git keeps them for the life of the process),
// and git's rules for a filter that fails (convert.c handle_filter_error):
//   status=error   that file fails, the process stays;
//   status=abort   that file fails, and the process is not asked for that direction again;
//   anything else  (a broken conversation, an unexpected status) "external filter '...' failed",
//                  the process is stopped, and the next file that needs it starts a new one.
// A failed file is null here; whether that is fatal (`required`) is the caller's decision.
//
// A request to a process is written at once and its answer read when the caller takes it (a
// Pending), so that requests may be sent before the answers to earlier ones have come (git waits
// for each), which saves a round trip per file. Answers must be taken in the order their requests
// were made. What git would not have sent is made not to count: every request has a sequence
// number, and one sent after a request whose answer aborted its direction counts as never asked
// (the file is not filtered, a delay it got is forgotten), one sent after a request that got the
// process stopped is asked again of a new process.
import { filterCommand, processCommand, type FilterDriver } from './driver.js';
import { CAP_CLEAN, CAP_DELAY, CAP_SMUDGE, FilterProcess, type FilterRequest } from './process-protocol.js';
import { runFilterCommand, type FilterContext } from './run-command.js';

export interface SmudgeMetadata {
  ref?: string;
  treeish?: string;
  blob?: string;
}

export type FilterResult = Buffer[] | 'delayed' | null;

/** An answer the caller takes later, once, and in the order the requests were made. */
export type Pending<T> = () => T;

interface Running {
  proc: FilterProcess;
  /** Requests sent so far; the next gets sent + 1. */
  sent: number;
  /** The request whose answer got the process stopped (Infinity while it runs). */
  stoppedAfter: number;
  /** Per direction (CAP_*), the request whose answer aborted it. */
  abortedAfter: Map<number, number>;
  /** Paths delayed by requests that count as never sent: passed over when listed. */
  forgotten: Set<string>;
}

const running = (proc: FilterProcess): Running => ({ proc, sent: 0, stoppedAfter: Infinity, abortedAfter: new Map(), forgotten: new Set() });
const keyOf = (p: Uint8Array): string => Buffer.from(p.buffer, p.byteOffset, p.length).toString('latin1');

export class FilterRunner {
  private readonly running = new Map<string, Running>();
  /** Processes started ahead of their first request (warmUp), their handshake not read yet. */
  private readonly launched = new Map<string, FilterProcess>();
  private readonly stopping: Promise<void>[] = [];

  constructor(readonly ctx: FilterContext) {}

  /**
   * `content` (already converted for the work tree: ident, eol) through `driver`'s process
   * filter; 'delayed' only when `canDelay` and the process has the capability. The request is
   * written now; `content` must stay as it is until the answer is taken. A single-file `smudge`
   * command is run by the caller (runFilterCommand).
   */
  smudge(driver: FilterDriver, path: Uint8Array, content: Uint8Array, meta: SmudgeMetadata, canDelay: boolean): Pending<FilterResult> {
    const command = processCommand(driver);
    if (!command) return () => null;
    return this.viaProcess(command, CAP_SMUDGE, { command: 'smudge', path, ...meta, content, canDelay });
  }

  /** Work-tree `content` through `driver`'s clean side. */
  async clean(driver: FilterDriver, path: Uint8Array, content: Uint8Array): Promise<Buffer[] | null> {
    const command = filterCommand(driver, 'clean');
    if (command) return runFilterCommand(command, path, content, this.ctx);
    const processCmd = processCommand(driver);
    if (!processCmd) return null;
    return this.viaProcess(processCmd, CAP_CLEAN, { command: 'clean', path, content, canDelay: false })() as Buffer[] | null;
  }

  /**
   * The paths that process `command` has ready of those it delayed; empty when it has no more,
   * null when it failed (git's async_query_available_blobs). The request is written now.
   */
  available(command: string): Pending<Buffer[] | null> {
    const e = this.running.get(command);
    if (!e) return () => this.gone(command);
    const seq = ++e.sent;
    const ticket = e.proc.listAvailable();
    return () => {
      const answer = e.proc.answer(ticket);
      if (seq > e.stoppedAfter) return this.gone(command);
      if (answer.status === 'success') return answer.paths.filter(p => !e.forgotten.has(keyOf(p)));
      this.failed(command, e, seq, answer.status, 0);
      return null;
    };
  }

  private gone(command: string): null {
    this.ctx.log(`error: external filter '${command}' is not available anymore although not all paths have been filtered\n`);
    return null;
  }

  /**
   * Starts the process for `command` now, ahead of its first request, whose handshake is read
   * when that request comes: the process's own start overlaps the caller's work (the plan).
   * Quietly: if it cannot start, the first request tries again and reports it, as git would.
   */
  warmUp(command: string): void {
    if (this.running.has(command) || this.launched.has(command)) return;
    this.launched.set(command, FilterProcess.launch(command, this.ctx));
  }

  /** The running process for `command`, started now if need be; null when it cannot start. */
  private process(command: string): Running | null {
    const e = this.running.get(command);
    if (e) return e;
    const warm = this.launched.get(command);
    let proc: FilterProcess | null = null;
    if (warm) {
      this.launched.delete(command);
      try {
        proc = warm.finishStart({ ...this.ctx, log: () => {} }, this.stopping);
      } catch {
        // a capability git does not know: the start below meets it again, and fails
      }
    }
    proc ??= FilterProcess.start(command, this.ctx, this.stopping);
    if (!proc) return null;
    const started = running(proc);
    this.running.set(command, started);
    return started;
  }

  private viaProcess(command: string, wanted: number, req: FilterRequest): Pending<FilterResult> {
    const e = this.process(command);
    return e ? this.send(command, e, wanted, req) : () => null;
  }

  private send(command: string, e: Running, wanted: number, req: FilterRequest): Pending<FilterResult> {
    if (!(e.proc.capabilities & wanted)) return () => null;
    const seq = ++e.sent;
    const delay = req.canDelay && (e.proc.capabilities & CAP_DELAY) !== 0;
    const ticket = e.proc.request({ ...req, canDelay: delay });
    return () => {
      const answer = e.proc.answer(ticket);
      if (seq > e.stoppedAfter) return this.viaProcess(command, wanted, req)();
      if (seq > (e.abortedAfter.get(wanted) ?? Infinity)) {
        if (answer.status === 'delayed') e.forgotten.add(keyOf(req.path));
        return null;
      }
      if (answer.status === 'success') return answer.content!;
      if (delay && answer.status === 'delayed') return 'delayed';
      this.failed(command, e, seq, answer.status, wanted);
      return null;
    };
  }

  /** handle_filter_error, for the answer to request `seq`. */
  private failed(command: string, e: Running, seq: number, status: string, wanted: number): void {
    if (status === 'error') return;
    if (status === 'abort' && wanted) {
      e.proc.capabilities &= ~wanted;
      e.abortedAfter.set(wanted, Math.min(e.abortedAfter.get(wanted) ?? Infinity, seq));
      return;
    }
    if (e.stoppedAfter !== Infinity) return;
    this.ctx.log(`error: external filter '${command}' failed\n`);
    e.stoppedAfter = seq;
    if (this.running.get(command) === e) this.running.delete(command);
    this.stopping.push(e.proc.stop());
  }

  /** Writes the requests gathered for every process: they work on them while the caller does other things. */
  flush(): void {
    for (const e of this.running.values()) e.proc.flush();
  }

  /** Asks every process to exit and waits for them, as git does when it exits. */
  async close(): Promise<void> {
    const procs = [...this.running.values()].map(e => e.proc).concat([...this.launched.values()]);
    this.running.clear();
    this.launched.clear();
    await Promise.all([...procs.map(p => p.close()), ...this.stopping]);
  }
}
