// Progress of long operations, as git reports them ("Receiving objects", "Resolving deltas",
// "Updating files"). Every layer reports through one interface, a Progress: a function that starts
// a meter for a phase. Who shows the meters, and how, is the caller's: the CLI draws them on stderr
// (cli/progress.ts), upload-pack sends them to the client over side-band 2, a library user gets
// the calls. Both drawings are git's progress.c, byte for byte, which this file renders:
//   "Receiving objects:  45% (188731/419403), 120.00 MiB | 40.00 MiB/s\r"
//   "Resolving deltas: 100% (317660/317660), done.\n"
// Like git, a line is redrawn when the percentage changes or a second has passed, the throughput
// is a moving average over the last eight half-second samples, and a line wider than the terminal
// is split after the title.

export interface ProgressMeter {
  /** `done` items so far and, for a transfer, `bytes` moved so far. */
  update(done: number, bytes?: number): void;
  /** The phase is over: git's final line, ending in `message` ("done" unless given). */
  stop(message?: string): void;
}

export interface ProgressHint {
  /** git shows this meter only once the phase has taken two seconds (start_delayed_progress). */
  delayed?: boolean;
}

/** Starts the meter of a phase; `total` is 0 when not known in advance. */
export type Progress = (title: string, total: number, hint?: ProgressHint) => ProgressMeter;

export interface ProgressTextOptions {
  /** Terminal width for line splitting (default 80, what git assumes without a terminal). */
  columns?: number;
  /** Clock in nanoseconds (tests); default process.hrtime.bigint. */
  now?: () => bigint;
}

/** A Progress that draws git's lines through `write`. */
export function progressText(write: (text: string) => void, options: ProgressTextOptions = {}): Progress {
  return (title, total, hint) => hint?.delayed
    ? new DelayedMeter(() => new ProgressText(title, total, write, options), options.now ?? hrtime)
    : new ProgressText(title, total, write, options);
}

const hrtime = (): bigint => process.hrtime.bigint();
const DELAY_NS = 2_000_000_000n;

/** A meter that appears only once its phase has taken two seconds, so a quick one prints nothing. */
class DelayedMeter implements ProgressMeter {
  private readonly start: bigint;
  private meter: ProgressMeter | null = null;

  constructor(private readonly create: () => ProgressMeter, private readonly now: () => bigint) {
    this.start = now();
  }

  update(done: number, bytes?: number): void {
    if (!this.meter) {
      if (this.now() - this.start < DELAY_NS) return;
      this.meter = this.create();
    }
    this.meter.update(done, bytes);
  }

  stop(message?: string): void {
    this.meter?.stop(message);
  }
}

const TP_SAMPLES = 8;
const SECOND = 1_000_000_000n;
const HALF_SECOND = 500_000_000n;

/** git's strbuf_humanise_bytes. */
export function humaniseBytes(bytes: number, rate = false): string {
  const suffix = rate ? '/s' : '';
  if (bytes > 2 ** 30) {
    const whole = Math.floor(bytes / 2 ** 30);
    const frac = Math.floor((bytes % 2 ** 30) / 10737419);
    return `${whole}.${String(frac).padStart(2, '0')} GiB${suffix}`;
  }
  if (bytes > 2 ** 20) {
    const x = bytes + 5243;
    return `${Math.floor(x / 2 ** 20)}.${String(Math.floor(((x % 2 ** 20) * 100) / 2 ** 20)).padStart(2, '0')} MiB${suffix}`;
  }
  if (bytes > 2 ** 10) {
    const x = bytes + 5;
    return `${Math.floor(x / 2 ** 10)}.${String(Math.floor(((x % 2 ** 10) * 100) / 2 ** 10)).padStart(2, '0')} KiB${suffix}`;
  }
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}${suffix}`;
}

export class ProgressText implements ProgressMeter {
  private readonly now: () => bigint;
  private readonly columns: number;
  private readonly start: bigint;
  private lastValue = -1;
  private lastPercent = -1;
  private lastShown: bigint;
  private counters = '';
  private split = false;
  private finished = false;
  // Throughput, as git keeps it: bytes and 1024ths of a second over the last samples.
  private tpDisplay = '';
  private tpStarted = false;
  private tpPrevTotal = 0;
  private tpCurrTotal = 0;
  private tpPrevNs = 0n;
  private avgBytes = 0;
  private avgMisecs = 0;
  private readonly lastBytes = new Array<number>(TP_SAMPLES).fill(0);
  private readonly lastMisecs = new Array<number>(TP_SAMPLES).fill(0);
  private tpIdx = 0;

  constructor(readonly title: string, private readonly total: number, private readonly write: (text: string) => void,
    options: ProgressTextOptions = {}) {
    this.now = options.now ?? hrtime;
    this.columns = options.columns ?? 80;
    this.start = this.now();
    // The first update always draws (git: the percentage "changes" from -1).
    this.lastShown = this.start;
  }

  /** Records that `n` items (and, for a transfer, `bytes` bytes) are done; redraws if due. */
  update(n: number, bytes?: number): void {
    if (this.finished) return;
    const now = this.now();
    const tick = now - this.lastShown >= SECOND;
    if (bytes !== undefined) this.throughput(bytes, now);
    this.display(n, null, tick, now);
  }

  /** Prints the final line: "<title>: 100% (n/n), <message>.\n" (git's stop_progress_msg). */
  stop(message = 'done'): void {
    if (this.finished) return;
    this.finished = true;
    if (this.lastValue === -1) return;
    const now = this.now();
    if (this.tpStarted) {
      const misecs = Number(((now - this.start) * 4398n) >> 32n);
      const rate = Math.floor(this.tpCurrTotal / (misecs || 1));
      this.tpDisplay = `, ${humaniseBytes(this.tpCurrTotal)} | ${humaniseBytes(rate * 1024, true)}`;
    }
    this.display(this.lastValue, `, ${message}.\n`, true, now);
  }

  private throughput(total: number, now: bigint): void {
    if (!this.tpStarted) {
      this.tpStarted = true;
      this.tpPrevTotal = this.tpCurrTotal = total;
      this.tpPrevNs = now;
      return;
    }
    this.tpCurrTotal = total;
    if (now - this.tpPrevNs <= HALF_SECOND) return;
    const misecs = Number(((now - this.tpPrevNs) * 4398n) >> 32n);
    const count = total - this.tpPrevTotal;
    this.tpPrevTotal = total;
    this.tpPrevNs = now;
    this.avgBytes += count;
    this.avgMisecs += misecs;
    const rate = Math.floor(this.avgBytes / this.avgMisecs);
    this.avgBytes -= this.lastBytes[this.tpIdx]!;
    this.avgMisecs -= this.lastMisecs[this.tpIdx]!;
    this.lastBytes[this.tpIdx] = count;
    this.lastMisecs[this.tpIdx] = misecs;
    this.tpIdx = (this.tpIdx + 1) % TP_SAMPLES;
    this.tpDisplay = `, ${humaniseBytes(total)} | ${humaniseBytes(rate * 1024, true)}`;
  }

  private display(n: number, done: string | null, tick: boolean, now: bigint): void {
    const lastLen = this.counters.length;
    this.lastValue = n;
    let show = false;
    if (this.total) {
      const percent = Math.floor((n * 100) / this.total);
      if (percent !== this.lastPercent || tick) {
        this.lastPercent = percent;
        this.counters = `${String(percent).padStart(3, ' ')}% (${n}/${this.total})${this.tpDisplay}`;
        show = true;
      }
    } else if (tick) {
      this.counters = `${n}${this.tpDisplay}`;
      show = true;
    }
    if (!show) return;
    this.lastShown = now;
    const eol = done ?? '\r';
    let clear = this.counters.length < lastLen ? lastLen - this.counters.length + 1 : 0;
    const lineLen = this.title.length + this.counters.length + 2;
    if (this.split) {
      this.write(`  ${this.counters}${pad(eol, clear)}`);
    } else if (!done && this.columns < lineLen) {
      clear = this.title.length + 1 < this.columns ? this.columns - this.title.length - 1 : 0;
      this.write(`${this.title}:${' '.repeat(clear)}\n  ${this.counters}${eol}`);
      this.split = true;
    } else {
      this.write(`${this.title}: ${this.counters}${pad(eol, clear)}`);
    }
  }
}

/** printf's "%*s": `s` right-aligned in a field of `width`. */
function pad(s: string, width: number): string {
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}
