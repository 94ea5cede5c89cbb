// Writing the entries a filter driver smudges (filter/), on the main thread, in index order: the
// blob is converted as any other (ident, eol: git converts before it filters), sent through the
// driver, and its output written with the stat data recorded. A process filter may delay an
// entry; once every entry has been offered, the delayed ones are collected as git's
// finish_delayed_checkout does: ask each process which are ready, ask again for each of those
// (empty content: the process kept what it was sent), write them, until every process says none.
// A failed filter writes the converted blob instead, unless the driver is required, which stops
// the checkout with git's fatal error.
import { GitError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { MODE_EXEC } from '../../object/tree.js';
import { filterCommand, processCommand, requiredFilterFailed, type FilterDriver } from '../filter/driver.js';
import type { FilterResult, FilterRunner, Pending } from '../filter/filters.js';
import { runFilterCommand } from '../filter/run-command.js';
import { displayPath } from './path-check.js';
import { entryPath, type EntryColumns } from './plan.js';
import type { EntryWriter } from './write-entry.js';

/** The entries of a plan that a filter smudges. */
export interface FilteredEntries {
  /** Per entry: 1 where a filter smudges it, so the other writers pass it by. */
  marks: Uint8Array;
  /** Each such entry's driver, in index order. */
  driverOf: Map<number, FilterDriver>;
}

/** What the filters of one checkout share: the running filters and git's checkout metadata. */
export interface FilterSession {
  runner: FilterRunner;
  /** The branch being checked out, as git names it to filters (clone only). */
  ref?: string;
  /** The commit (or tree) being checked out; none when entries of the index are (sparse-checkout). */
  treeish?: string;
}

const EMPTY = Buffer.alloc(0);
const pathKey = (p: Uint8Array): string => Buffer.from(p.buffer, p.byteOffset, p.length).toString('latin1');

/** Requests to filter processes in flight at most, and their content bytes. */
const WINDOW = 64;
const WINDOW_BYTES = 4 << 20;

interface InFlight {
  i: number;
  driver: FilterDriver;
  size: number;
  result: Pending<FilterResult>;
}

export class FilteredWriter {
  /** Delayed entries by path, and the commands of the processes holding them. */
  private readonly delayed = new Map<string, number>();
  private readonly delaying = new Set<string>();
  private readonly inFlight: InFlight[] = [];
  private inFlightBytes = 0;

  /**
   * `converted(i)` gives entry i's blob as the work tree holds it before filters (ident, eol
   * applied), valid until its next call; `onWritten` counts each entry written.
   */
  constructor(private readonly cols: EntryColumns, private readonly converted: (i: number) => Buffer,
    private readonly writer: EntryWriter, private readonly filtered: FilteredEntries, private readonly session: FilterSession,
    private readonly onWritten: () => void) {}

  /**
   * Sends entry i to its driver. A process filter's answer is taken later (written, or left
   * delayed for finish()), so that the process goes from one request to the next without
   * waiting for us (the process protocol keeps what is written ahead small enough never to
   * block); a single-file command runs to the end here.
   */
  async submit(i: number): Promise<void> {
    const driver = this.filtered.driverOf.get(i)!;
    const path = entryPath(this.cols, i);
    const command = filterCommand(driver, 'smudge');
    if (command) {
      this.settle(i, driver, await runFilterCommand(command, path, this.converted(i), this.session.runner.ctx));
      return;
    }
    // The request may be asked again of a new process after this returns: it keeps its own copy.
    const data = Buffer.from(this.converted(i));
    this.inFlight.push({ i, driver, size: data.length, result: this.session.runner.smudge(driver, path, data, this.metadata(i), true) });
    this.inFlightBytes += data.length;
    while (this.inFlight.length >= WINDOW || this.inFlightBytes > WINDOW_BYTES) this.settleOldest();
  }

  private settleOldest(): void {
    const head = this.inFlight.shift()!;
    this.inFlightBytes -= head.size;
    this.settle(head.i, head.driver, head.result());
  }

  private settle(i: number, driver: FilterDriver, result: FilterResult): void {
    if (result === 'delayed') {
      this.delayed.set(pathKey(entryPath(this.cols, i)), i);
      this.delaying.add(processCommand(driver)!);
      return;
    }
    this.writeResult(i, driver, result);
  }

  /**
   * Takes the answers still to come, then collects the delayed entries. Returns how many could
   * not be written (git's "was not filtered properly"), each reported; the caller fails the
   * checkout when there are any.
   */
  finish(): number {
    while (this.inFlight.length) this.settleOldest();
    const { runner } = this.session;
    const log = runner.ctx.log;
    let errors = 0;
    // With one process holding delayed files, git's next question after a round of retries is
    // that process's list again: it is sent with the retries, and the last round's files are
    // created while the process works on both (git-lfs hands back one file a round, so the
    // rounds are the checkout's critical path).
    let next: Pending<Buffer[] | null> | null = null;
    let unwritten: { i: number; result: FilterResult }[] = [];
    while (this.delaying.size) {
      for (const command of [...this.delaying].sort()) {
        const ready = (next ?? runner.available(command))();
        next = null;
        if (!ready || !ready.length) {
          if (!ready) errors++;
          this.delaying.delete(command);
          continue;
        }
        const paths = [...new Map(ready.map(p => [pathKey(p), p])).values()].sort(Buffer.compare);
        const entries = paths.map(p => this.delayed.get(pathKey(p)));
        for (const p of paths) this.delayed.delete(pathKey(p));
        const round: { i: number; result: Pending<FilterResult> }[] = [];
        for (let k = 0; k < paths.length; k++) {
          const i = entries[k];
          if (i === undefined) {
            log(`error: external filter '${command}' signaled that '${displayPath(paths[k]!)}' is now available although it has not been delayed earlier\n`);
            errors++;
            this.delaying.delete(command); // likely buggy: not asked again
            continue;
          }
          round.push({ i, result: runner.smudge(this.filtered.driverOf.get(i)!, entryPath(this.cols, i), EMPTY, this.metadata(i), false) });
        }
        if (this.delaying.size === 1 && this.delaying.has(command)) next = runner.available(command);
        runner.flush();
        this.writeResults(unwritten);
        unwritten = round.map(({ i, result }) => ({ i, result: result() }));
      }
    }
    this.writeResults(unwritten);
    for (const i of this.delayed.values()) {
      log(`error: '${displayPath(entryPath(this.cols, i))}' was not filtered properly\n`);
      errors++;
    }
    this.delayed.clear();
    return errors;
  }

  private writeResults(results: { i: number; result: FilterResult }[]): void {
    for (const { i, result } of results) this.writeResult(i, this.filtered.driverOf.get(i)!, result);
  }

  /** A filter's output, or, when it failed, the converted blob (git writes an empty file after a failed retry). */
  private writeResult(i: number, driver: FilterDriver, result: FilterResult): void {
    const executable = this.cols.modes[i] === MODE_EXEC;
    if (result === 'delayed') throw new GitError('worktree', 'internal', 'a filter delayed a file it could not delay');
    if (result) this.writer.writeFile(i, result, executable);
    else if (driver.required) throw requiredFilterFailed('smudge', displayPath(entryPath(this.cols, i)), driver);
    else this.writer.writeFile(i, this.converted(i), executable);
    this.onWritten();
  }

  private metadata(i: number): { ref?: string; treeish?: string; blob: string } {
    const blob = toHex(this.cols.oids.subarray(i * OID_BYTES, (i + 1) * OID_BYTES));
    const { ref, treeish } = this.session;
    return { ...ref !== undefined ? { ref } : {}, ...treeish !== undefined ? { treeish } : {}, blob };
  }
}
