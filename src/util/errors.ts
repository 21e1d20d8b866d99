/**
 * Errors a user can act on: what failed, the likely cause and the fix.
 * The CLI prints `message` and `fix` (never a stack trace) and exits with `exitCode`.
 */
export const ExitCode = {
  ok: 0,
  /** A measurement ran but was out of tolerance, or a check failed. */
  checkFailed: 1,
  /** Bad command line or bad input file (profile, scenario, pcap). */
  badInput: 2,
  /** The machine lacks something (root, a kernel feature, a tool). */
  missingPrerequisite: 3,
  /** `check`: nothing failed, but some expectation could not be decided (no answer, nothing seen). */
  inconclusive: 4,
  /** The run was interrupted by SIGINT (Ctrl-C); partial data was kept. */
  interrupted: 130,
  /** The run was stopped by SIGTERM; partial data was kept. */
  terminated: 143,
  /** Anything else: a bug. */
  internal: 70,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class CcbError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
    readonly exitCode: ExitCodeValue = ExitCode.internal,
  ) {
    super(message);
    this.name = 'CcbError';
  }
}

export class BadInputError extends CcbError {
  constructor(message: string, fix?: string) {
    super(message, fix, ExitCode.badInput);
    this.name = 'BadInputError';
  }
}

export class MissingPrerequisiteError extends CcbError {
  constructor(message: string, fix?: string) {
    super(message, fix, ExitCode.missingPrerequisite);
    this.name = 'MissingPrerequisiteError';
  }
}
