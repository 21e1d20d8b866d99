/**
 * What a command says while it works, on stderr (stdout is for results): a live line that
 * rewrites itself on a terminal, plain lines in a pipe (the live line at most every 10 s),
 * nothing with --quiet (or --json, whose stdout a program reads), and detail only with -v.
 */
import type { Command } from 'commander';

export interface Reporter {
  /** A line worth keeping (a phase starts, a result). */
  info(msg: string): void;
  /** Detail for -v only (each step of a scenario, each helper started). */
  detail(msg: string): void;
  /** The live status line (elapsed time, bytes so far): replaced by the next one. */
  progress(line: string): void;
  /** Ends the live line (before printing results). */
  done(): void;
}

export interface ReporterOptions {
  quiet?: boolean;
  verbose?: boolean;
  /** Where to write (default process.stderr). */
  stream?: NodeJS.WriteStream;
  /** Prefix each line with the seconds since the command started. */
  elapsed?: boolean;
}

const PIPE_PROGRESS_EVERY_MS = 10_000;

export function createReporter(o: ReporterOptions = {}): Reporter {
  const stream = o.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  const t0 = Date.now();
  const stamp = (m: string) => (o.elapsed ? `[${((Date.now() - t0) / 1000).toFixed(0)} s] ${m}` : m);
  let live = '';
  let lastPipeProgress = 0;
  const clear = () => { if (tty && live) stream.write('\r\x1b[K'); };
  const redraw = () => { if (tty && live) stream.write(live); };
  const line = (m: string) => {
    if (o.quiet) return;
    clear();
    stream.write(stamp(m) + '\n');
    redraw();
  };
  return {
    info: line,
    detail: (m) => { if (o.verbose) line(m); },
    progress(m) {
      if (o.quiet) return;
      if (tty) {
        const width = Math.max(20, (stream.columns ?? 100) - 1);
        live = stamp(m).slice(0, width);
        stream.write('\r\x1b[K' + live);
      } else if (Date.now() - lastPipeProgress >= PIPE_PROGRESS_EVERY_MS) {
        lastPipeProgress = Date.now();
        stream.write(stamp(m) + '\n');
      }
    },
    done() {
      if (tty && live) stream.write('\r\x1b[K');
      live = '';
    },
  };
}

/** The reporter for a command: its --json and the global --quiet / -v. */
export function reporterFor(cmd: Command, extra: Omit<ReporterOptions, 'quiet' | 'verbose'> = {}): Reporter {
  const g = cmd.optsWithGlobals() as { quiet?: boolean; verbose?: boolean; json?: boolean };
  return createReporter({ ...extra, quiet: g.quiet === true || (g.json === true && g.verbose !== true), verbose: g.verbose === true });
}
