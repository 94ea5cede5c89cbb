// The filters of one checkout: single-file commands run per file, long-running processes started
// once per command and kept until the checkout ends (git keeps them for the life of the process),
// and git's rules for a filter that fails (convert.c handle_filter_error):
//   status=error   that file fails, the process stays;
//   status=abort   that file fails, and the process is not asked for that direction again;
//   anything else  (a broken conversation, an unexpected status) "external filter '...' failed",
//                  the process is stopped, and the next file that needs it starts a new one.
// A failed file is null here; whether that is fatal (`required`) is the caller's decision.
import { filterCommand, processCommand, type FilterDriver } from './driver.js';
import { CAP_CLEAN, CAP_DELAY, CAP_SMUDGE, FilterProcess, type FilterRequest } from './process-protocol.js';
import { runFilterCommand, type FilterContext } from './run-command.js';

export interface SmudgeMetadata {
  ref?: string;
  treeish?: string;
  blob?: string;
}

export type FilterResult = Buffer[] | 'delayed' | null;

export class FilterRunner {
  private readonly processes = new Map<string, FilterProcess>();

  constructor(readonly ctx: FilterContext) {}

  /**
   * `content` (already converted for the work tree: ident, eol) through `driver`'s smudge side;
   * 'delayed' only when `canDelay` and the process has the capability.
   */
  smudge(driver: FilterDriver, path: Uint8Array, content: Uint8Array, meta: SmudgeMetadata, canDelay: boolean): Promise<FilterResult> {
    return this.apply(driver, 'smudge', path, content, meta, canDelay);
  }

  /** Work-tree `content` through `driver`'s clean side. */
  async clean(driver: FilterDriver, path: Uint8Array, content: Uint8Array): Promise<Buffer[] | null> {
    return await this.apply(driver, 'clean', path, content, {}, false) as Buffer[] | null;
  }

  private async apply(driver: FilterDriver, direction: 'smudge' | 'clean', path: Uint8Array, content: Uint8Array,
    meta: SmudgeMetadata, canDelay: boolean): Promise<FilterResult> {
    const command = filterCommand(driver, direction);
    if (command) return runFilterCommand(command, path, content, this.ctx);
    const processCmd = processCommand(driver);
    if (!processCmd) return null;
    let proc = this.processes.get(processCmd);
    if (!proc) {
      const started = await FilterProcess.start(processCmd, this.ctx);
      if (!started) return null;
      this.processes.set(processCmd, proc = started);
    }
    const wanted = direction === 'smudge' ? CAP_SMUDGE : CAP_CLEAN;
    if (!(proc.capabilities & wanted)) return null;
    const delay = canDelay && (proc.capabilities & CAP_DELAY) !== 0;
    const req: FilterRequest = { command: direction, path, ...meta, content, canDelay: delay };
    const answer = await proc.request(req);
    if (answer.status === 'success') return answer.content!;
    if (delay && answer.status === 'delayed') return 'delayed';
    await this.failed(proc, answer.status, wanted);
    return null;
  }

  /**
   * The paths that process `command` has ready of those it delayed; empty when it has no more,
   * null when it failed (git's async_query_available_blobs).
   */
  async available(command: string): Promise<Buffer[] | null> {
    const proc = this.processes.get(command);
    if (!proc) {
      this.ctx.log(`error: external filter '${command}' is not available anymore although not all paths have been filtered\n`);
      return null;
    }
    const answer = await proc.listAvailable();
    if (answer.status === 'success') return answer.paths;
    await this.failed(proc, answer.status, 0);
    return null;
  }

  private async failed(proc: FilterProcess, status: string, wanted: number): Promise<void> {
    if (status === 'error') return;
    if (status === 'abort' && wanted) {
      proc.capabilities &= ~wanted;
      return;
    }
    this.ctx.log(`error: external filter '${proc.command}' failed\n`);
    this.processes.delete(proc.command);
    await proc.stop();
  }

  /** Asks every process to exit and waits for them, as git does when it exits. */
  async close(): Promise<void> {
    const procs = [...this.processes.values()];
    this.processes.clear();
    await Promise.all(procs.map(p => p.close()));
  }
}
