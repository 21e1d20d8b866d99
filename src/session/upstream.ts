/**
 * Where a run's servers are, behind one interface: the session builds its topology and
 * bottleneck, then hands the topology's upstream side to an Upstream and never asks which
 * kind it is. The lab's (lab-upstream.ts) routes to the lab's origins and brings the lab's
 * Chromium arguments, call peer and ground truth; the internet's (here) is the host's uplink.
 */
import type { CleanupStack } from '../net/cleanup.js';
import type { Topology } from '../net/topology.js';
import { attachNatUplink } from '../net/uplink.js';
import type { LabContext } from '../scenario/lab.js';
import type { Scenario } from '../scenario/schema.js';

/** One profile's connection to the servers, for one session. */
export interface AttachedUpstream {
  /** Chromium arguments this upstream needs (host mapping, certificates, QUIC hosts). */
  chromiumArgs: string[];
  /** What lab scenarios' steps see (`lab` in their context); none outside the lab. */
  labContext?: LabContext;
  /**
   * After the capture has started, before the browser: e.g. the far end of a call joins (its
   * media crosses the bottleneck, so it must be captured from its first packet).
   */
  beforeBrowser?(say: (m: string) => void): Promise<void>;
  /** After the session: the servers' own records of this profile's connections, into `profileDir`. */
  collect?(profileDir: string, fromSeconds: number, toSeconds: number): void;
}

export interface Upstream {
  /** Recorded in run.json. */
  readonly mode: 'lab' | 'internet';
  /** Connects the topology's upstream namespace to the servers; removed with `stack`. */
  attach(stack: CleanupStack, topo: Topology, scenario: Scenario): Promise<AttachedUpstream>;
}

/** The host's uplink, NATed: real sites on the internet. */
export function internetUpstream(): Upstream {
  return {
    mode: 'internet',
    async attach(stack, topo) {
      await attachNatUplink(stack, topo);
      return {
        chromiumArgs: ['--disable-background-networking', '--disable-component-update', '--no-first-run',
          '--autoplay-policy=no-user-gesture-required', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      };
    },
  };
}
