// Progress lines as git's pack-objects writes them to the client (side-band 2):
//   "Counting objects:  45% (188731/419403)\r" ... "Counting objects: 100% (419403/419403), done.\n"
//   "Enumerating objects: 1234\r" ... "Enumerating objects: 419403, done.\n"
// A line is redrawn when its percentage changes or a second has passed, and a shorter line pads
// with spaces over the longer one it replaces, as progress.c does.
import type { ProgressMeter } from '../packing/write/write.js';

export class ServerProgress implements ProgressMeter {
  private lastPercent = -1;
  private lastShown = 0;
  private lastLength = 0;
  private value = 0;

  constructor(private readonly title: string, private readonly total: number,
    private readonly emit: (text: string) => void, private readonly now: () => number = Date.now) {
    this.lastShown = this.now();
  }

  update(n: number): void {
    this.value = n;
    const tick = this.now() - this.lastShown >= 1000;
    if (this.total) {
      const percent = Math.floor((n * 100) / this.total);
      if (percent !== this.lastPercent || tick) {
        this.lastPercent = percent;
        this.show(this.counters(n), '\r');
      }
    } else if (tick) {
      this.show(String(n), '\r');
    }
  }

  stop(): void {
    this.show(this.total ? this.counters(this.value) : String(this.value), ', done.\n');
  }

  private counters(n: number): string {
    const percent = Math.floor((n * 100) / this.total);
    return `${String(percent).padStart(3)}% (${n}/${this.total})`;
  }

  private show(counters: string, eol: string): void {
    this.lastShown = this.now();
    const clear = counters.length < this.lastLength ? this.lastLength - counters.length + 1 : 0;
    this.lastLength = counters.length;
    this.emit(`${this.title}: ${counters}${' '.repeat(clear)}${eol}`);
  }
}
