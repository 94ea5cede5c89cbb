// The output of jobs run at once, ordered as git's run_processes_parallel orders its children's:
// the earliest-started running job prints as it goes; the others' output is held, and a job's
// that ends first waits until the one printing ends; then the next earliest-started job prints
// what it held and goes on live. No job's output is cut into by another's.

/** A job's share of the output: where it says things, and its end. */
export interface JobOutput {
  say(text: string): void;
  end(): void;
}

export class ParallelOutput {
  // Jobs in start order, each with the output it holds while another one prints.
  private readonly started: { held: string[]; done: boolean }[] = [];
  private finished = '';

  constructor(private readonly write: (text: string) => void) {}

  /** A job starting. */
  start(): JobOutput {
    const slot = { held: [] as string[], done: false };
    this.started.push(slot);
    return {
      say: (text) => {
        if (this.started[0] === slot) this.write(text);
        else slot.held.push(text);
      },
      end: () => {
        slot.done = true;
        if (this.started[0] === slot) this.handOn();
        else {
          this.finished += slot.held.join('');
          slot.held.length = 0;
        }
      },
    };
  }

  /** The job printing ended: what ended meanwhile, then the next one's held output, which then goes live. */
  private handOn(): void {
    while (this.started.length > 0 && this.started[0]!.done) this.started.shift();
    if (this.finished) {
      this.write(this.finished);
      this.finished = '';
    }
    const next = this.started[0];
    if (next && next.held.length > 0) {
      this.write(next.held.join(''));
      next.held.length = 0;
    }
  }
}
