// git's start_delayed_progress: a meter that appears only once the work has taken two seconds,
// so a quick checkout prints nothing.
import { Progress } from '../cli/progress.js';

const DELAY_NS = 2_000_000_000n;

export class DelayedProgress {
  private readonly start = process.hrtime.bigint();
  private meter: Progress | null = null;
  private last = 0;

  constructor(private readonly title: string, private readonly enabled: boolean) {}

  update(done: number, total: number): void {
    if (!this.enabled) return;
    this.last = done;
    if (!this.meter) {
      if (process.hrtime.bigint() - this.start < DELAY_NS) return;
      this.meter = new Progress(this.title, total);
    }
    this.meter.update(done);
  }

  done(): void {
    this.meter?.done('done', this.last);
  }
}
