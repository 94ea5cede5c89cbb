// The filters of one checkout: single-file commands run per file, long-running processes started
// once per command and kept until the checkout ends (git keeps them for the life of the process),
// and git's rules for a filter that fails (convert.c handle_filter_error):
//   status=error   that file fails, the process stays;
//   status=abort   that file fails, and the process is not asked for that direction again;
//   anything else  (a broken conversation, an unexpected status) "external filter '...' failed",
//                  the process is stopped, and the next file that needs it starts a new one.
// A failed file is null here; whether that is fatal (`required`) is the caller's decision.
//
// Requests to a process may be sent before the answers to earlier ones have come (git waits for
// each), which saves a round trip per file. What git would not have sent is made not to count:
// every request has a sequence number, and one sent after a request whose answer aborted its
// direction counts as never asked (the file is not filtered, a delay it got is forgotten), one
// sent after a request that got the process stopped is asked again of a new process.
import { filterCommand, processCommand, type FilterDriver } from './driver.js';
import { CAP_CLEAN, CAP_DELAY, CAP_SMUDGE, FilterProcess, type FilterRequest } from './process-protocol.js';
import { runFilterCommand, type FilterContext } from './run-command.js';

export interface SmudgeMetadata {
  ref?: string;
  treeish?: string;
  blob?: string;
}

export type FilterResult = Buffer[] | 'delayed' | null;

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
  /** Per command, the requests waiting for a process to start, chained in the order they came. */
  private readonly queued = new Map<string, { tail: Promise<unknown>; count: number }>();
  private readonly stopping: Promise<void>[] = [];

  constructor(readonly ctx: FilterContext) {}

  /**
   * `content` (already converted for the work tree: ident, eol) through `driver`'s smudge side;
   * 'delayed' only when `canDelay` and the process has the capability. A request to a running
   * process is written before this returns; otherwise `content` is copied. The answer may come
   * after later calls have sent theirs. `content` must stay as it is until the answer, unless
   * the process was running (then it was copied into the request).
   */
  smudge(driver: FilterDriver, path: Uint8Array, content: Uint8Array, meta: SmudgeMetadata, canDelay: boolean): Promise<FilterResult> {
    const command = filterCommand(driver, 'smudge');
    if (command) return runFilterCommand(command, path, content, this.ctx);
    const processCmd = processCommand(driver);
    if (!processCmd) return Promise.resolve(null);
    return this.viaProcess(processCmd, CAP_SMUDGE, { command: 'smudge', path, ...meta, content, canDelay });
  }

  /** Work-tree `content` through `driver`'s clean side. */
  async clean(driver: FilterDriver, path: Uint8Array, content: Uint8Array): Promise<Buffer[] | null> {
    const command = filterCommand(driver, 'clean');
    if (command) return runFilterCommand(command, path, content, this.ctx);
    const processCmd = processCommand(driver);
    if (!processCmd) return null;
    return await this.viaProcess(processCmd, CAP_CLEAN, { command: 'clean', path, content, canDelay: false }) as Buffer[] | null;
  }

  /**
   * The paths that process `command` has ready of those it delayed; empty when it has no more,
   * null when it failed (git's async_query_available_blobs). The request is written now when
   * nothing waits before it.
   */
  available(command: string): Promise<Buffer[] | null> {
    const q = this.queued.get(command);
    if (q) return q.tail.then(() => this.available(command));
    const e = this.running.get(command);
    if (!e) return Promise.resolve(this.gone(command));
    const seq = ++e.sent;
    return e.proc.listAvailable().then((answer) => {
      if (seq > e.stoppedAfter) return this.gone(command);
      if (answer.status === 'success') return answer.paths.filter(p => !e.forgotten.has(keyOf(p)));
      this.failed(command, e, seq, answer.status, 0);
      return null;
    });
  }

  private gone(command: string): null {
    this.ctx.log(`error: external filter '${command}' is not available anymore although not all paths have been filtered\n`);
    return null;
  }

  /**
   * Starts the process for `command` now, ahead of its first request, which then waits for it.
   * Quietly: if it cannot start, the first request tries again and reports it, as git would.
   */
  warmUp(command: string): void {
    if (this.running.has(command) || this.queued.has(command)) return;
    const quiet: FilterContext = { ...this.ctx, log: () => {} };
    // Spawned and greeted here, synchronously: a step of the chain would run only once the
    // caller's synchronous work (the plan) is over, which is what the warm-up must overlap.
    const starting = FilterProcess.start(command, quiet);
    starting.catch(() => {}); // awaited in the chain below
    void this.chain(command, async () => {
      try {
        const proc = await starting;
        if (proc) this.running.set(command, running(proc));
      } catch {
        // a capability git does not know: the first request meets it again, and fails
      }
    });
  }

  private viaProcess(command: string, wanted: number, req: FilterRequest): Promise<FilterResult> {
    const e = this.running.get(command);
    if (e && !this.queued.has(command)) return this.send(command, e, wanted, req);
    // It waits for a start: it must own its bytes, and go after what came before it.
    const owned: FilterRequest = { ...req, path: Buffer.from(req.path), content: Buffer.from(req.content) };
    return this.chain(command, async () => {
      let run = this.running.get(command);
      if (!run) {
        const proc = await FilterProcess.start(command, this.ctx);
        if (proc) this.running.set(command, run = running(proc));
      }
      // Wrapped, so that this step ends once the request is written, not when it is answered.
      return { answer: run ? this.send(command, run, wanted, owned) : Promise.resolve(null) };
    }).then(s => s.answer);
  }

  /** Runs `step` after the steps queued for `command` before it. */
  private chain<T>(command: string, step: () => Promise<T>): Promise<T> {
    const q = this.queued.get(command) ?? { tail: Promise.resolve() as Promise<unknown>, count: 0 };
    const done = q.tail.then(step);
    q.count++;
    q.tail = done.then(() => this.dequeue(command, q), () => this.dequeue(command, q));
    this.queued.set(command, q);
    return done;
  }

  private dequeue(command: string, q: { count: number }): void {
    if (--q.count === 0 && this.queued.get(command) === q) this.queued.delete(command);
  }

  private send(command: string, e: Running, wanted: number, req: FilterRequest): Promise<FilterResult> {
    if (!(e.proc.capabilities & wanted)) return Promise.resolve(null);
    const seq = ++e.sent;
    const delay = req.canDelay && (e.proc.capabilities & CAP_DELAY) !== 0;
    return e.proc.request({ ...req, canDelay: delay }).then((answer) => {
      if (seq > e.stoppedAfter) return this.viaProcess(command, wanted, req);
      if (seq > (e.abortedAfter.get(wanted) ?? Infinity)) {
        if (answer.status === 'delayed') e.forgotten.add(keyOf(req.path));
        return null;
      }
      if (answer.status === 'success') return answer.content!;
      if (delay && answer.status === 'delayed') return 'delayed';
      this.failed(command, e, seq, answer.status, wanted);
      return null;
    });
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

  /** Asks every process to exit and waits for them, as git does when it exits. */
  async close(): Promise<void> {
    await Promise.all([...this.queued.values()].map(q => q.tail));
    const procs = [...this.running.values()].map(e => e.proc);
    this.running.clear();
    await Promise.all([...procs.map(p => p.close()), ...this.stopping]);
  }
}
