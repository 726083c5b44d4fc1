/**
 * A progress report for long CLI jobs (`storefront seed bench`). On a terminal it redraws one line,
 * a bar with the count, the rate and the time left, at most every `redrawMs`; elsewhere (a pipe, a
 * log file, CI) it prints a plain line at each tenth of the way, so a log gets about ten lines.
 */
export interface ProgressOptions {
  /** Where the report goes (the CLI gives stderr, so stdout keeps only the result). */
  write: (text: string) => void;
  /** Draw a bar that redraws itself (true on a TTY) or print lines. */
  tty: boolean;
  /** What is counted, e.g. "products". */
  unit: string;
  /** Milliseconds since some fixed point (performance.now by default). */
  now?: () => number;
  redrawMs?: number;
  width?: number;
}

export type ProgressReport = (done: number, total: number) => void;

export function progressReporter(options: ProgressOptions): ProgressReport {
  const now = options.now ?? (() => performance.now());
  const redrawMs = options.redrawMs ?? 100;
  const width = options.width ?? 30;
  let started: number | null = null;
  let lastDraw = -Infinity;
  let lastTenth = 0;
  let finished = false;

  return (done, total) => {
    const t = now();
    started ??= t;
    if (finished) return;
    const complete = done >= total;
    const seconds = (t - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const left = rate > 0 ? (total - done) / rate : null;
    const figures = `${count(done)}/${count(total)} ${options.unit}  ${count(Math.round(rate))}/s  ${
      complete ? `in ${duration(seconds)}` : `ETA ${left === null ? '…' : duration(left)}`
    }`;
    if (options.tty) {
      if (!complete && t - lastDraw < redrawMs) return;
      lastDraw = t;
      const filled = total > 0 ? Math.min(width, Math.floor((done / total) * width)) : width;
      options.write(
        `\r  [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${figures}\x1b[K${complete ? '\n' : ''}`,
      );
    } else {
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (tenth <= lastTenth && !complete) return;
      lastTenth = tenth;
      options.write(`  ${String(Math.floor((done / total) * 100)).padStart(3)} %  ${figures}\n`);
    }
    finished = complete;
  };
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** 42s, 3m05s, 1h02m. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
