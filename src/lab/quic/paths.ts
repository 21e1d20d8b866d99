/**
 * Where each HTTP/3 lab stack's program lives, and whether it is built.
 * Paths are resolved from the repository root (found from this file), so the same code works
 * from src/ under tsx and from dist/ after `tsc`; env variables override them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type QuicStack = 'quinn' | 'aioquic' | 'quiche';

/** Controllers each stack accepts on --cc (first name is the canonical label it reports). */
export const QUIC_CONTROLLERS: Record<QuicStack, readonly string[]> = {
  quinn: ['newreno', 'cubic', 'bbr', 'reno'],
  aioquic: ['reno', 'cubic', 'newreno'],
  quiche: ['reno', 'cubic', 'bbr2', 'newreno'],
};

import { repoRoot } from '../../util/paths.js';

export { repoRoot };

function cargoTarget(): string {
  return process.env.CCB_CARGO_TARGET_DIR ?? join(repoRoot(), 'build', 'cargo-target');
}

export interface StackProgram {
  /** Executable to spawn. */
  cmd: string;
  /** Arguments placed before the common origin flags. */
  prefix: string[];
  /** Files that must exist for the stack to be usable. */
  needs: string[];
  /** How to build it (shown in the error when `needs` are missing). */
  fix: string;
}

export function stackProgram(stack: QuicStack): StackProgram {
  switch (stack) {
    case 'quinn': {
      const bin = process.env.CCB_H3_ORIGIN_BIN ?? join(cargoTarget(), 'release', 'ccb-h3-origin');
      return {
        cmd: bin,
        prefix: [],
        needs: [bin],
        fix: 'build it: (cd native/h3-origin && CARGO_TARGET_DIR=../../build/cargo-target cargo build --release --locked)',
      };
    }
    case 'quiche': {
      const bin = process.env.CCB_QUICHE_ORIGIN_BIN ?? join(cargoTarget(), 'release', 'ccb-quiche-origin');
      return {
        cmd: bin,
        prefix: [],
        needs: [bin],
        fix:
          'build it (needs cmake, clang; ~5 min): (cd native/h3-origin && CARGO_TARGET_DIR=../../build/cargo-target cargo build --release --locked --features quiche --bin ccb-quiche-origin)',
      };
    }
    case 'aioquic': {
      const venv = process.env.CCB_VENV ?? join(repoRoot(), 'build', 'venv');
      const py = join(venv, 'bin', 'python');
      const script = join(repoRoot(), 'src', 'lab', 'quic', 'aioquic_server.py');
      return {
        cmd: py,
        // -u: unbuffered stdout, so `ready` reaches us the moment the socket is bound.
        prefix: ['-u', script],
        needs: [py, script, join(venv, '.ccb-requirements.sha256')],
        fix: 'create the venv: bash src/lab/quic/setup-venv.sh',
      };
    }
  }
}

/** Missing files for a stack (empty when it is ready to run). */
export function missingFiles(stack: QuicStack): string[] {
  return stackProgram(stack).needs.filter((f) => !existsSync(f));
}
