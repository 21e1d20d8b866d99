/**
 * A live check: each scenario in each region is measured with the run machinery
 * (runScenarioSession: topology, bottleneck, capture, Chromium, analysis), `--repeat` times,
 * then as many more times (up to the scenario's `retries`) as a `retry` rule is still
 * without an answer. The runs of one scenario in one region share a repeat group, so their
 * majority vote is written as `run --repeat` writes it (a vote file beside the runs) and
 * `--from-runs` finds them together later.
 */
import { newRunId } from '../net/netns.js';
import type { RunningLab } from '../lab/state.js';
import type { Profile } from '../shaper/profile.js';
import { runScenarioSession, type ProgressSample, type RunOutcome } from '../session/run.js';
import { writeRunVote } from '../session/repeat.js';
import { labUpstream } from '../session/lab-upstream.js';
import { CcbError } from '../util/errors.js';
import { internetUpstream } from '../session/upstream.js';
import type { CheckRun } from './observe.js';
import type { PlannedScenario } from './plan.js';
import { expectationsIn, judgeMeasurement, type Measurement } from './report.js';
import { readCheckRun } from './runs.js';

export interface LiveOptions {
  scenarios: readonly PlannedScenario[];
  /** The regions each scenario is checked in. */
  regionsOf: (s: PlannedScenario) => string[];
  repeat: number;
  /** The lab, for lab scenarios. */
  lab?: RunningLab;
  /** Profiles per scenario, loaded and checked before anything started. */
  profilesOf: (s: PlannedScenario) => Profile[];
  outDir: string;
  modelPath?: string;
  signal?: AbortSignal;
  say: (m: string) => void;
  onProgress?: (s: ProgressSample) => void;
}

export interface LiveResult {
  measurements: Measurement[];
  /** Every run directory made (for the store). */
  runDirs: string[];
  /** Vote files written (for the store). */
  voteFiles: string[];
}

/** A lab scenario runs against the lab's region (the command checked the lab is up); others against the internet. */
function upstreamOf(s: PlannedScenario, region: string, lab: RunningLab | undefined) {
  if (!s.scenario.lab) return internetUpstream();
  if (!lab) throw new CcbError(`scenario ${s.scenario.name} is a lab scenario: the check needs a running lab (--lab)`);
  return labUpstream(lab, region);
}

export async function measureLive(o: LiveOptions): Promise<LiveResult> {
  const result: LiveResult = { measurements: [], runDirs: [], voteFiles: [] };
  for (const s of o.scenarios) {
    for (const region of o.regionsOf(s)) {
      if (expectationsIn(s, region).length === 0) continue;
      if (o.signal?.aborted) {
        // Interrupted: what was not measured is reported as such (inconclusive), not left out.
        result.measurements.push({ scenario: s, region, runs: [], seconds: 0 });
        continue;
      }
      const group = newRunId();
      const outcomes: RunOutcome[] = [];
      const m: Measurement = { scenario: s, region, runs: [] as CheckRun[], seconds: 0 };
      const t0 = Date.now();
      const once = async (index: number) => {
        o.say(`${s.scenario.name} in ${region}: run ${index}${index > o.repeat ? ` (retry ${index - o.repeat} of ${s.retries})` : ` of ${o.repeat}`}`);
        const outcome = await runScenarioSession({
          scenario: s.scenario, scenarioFile: s.file, upstream: upstreamOf(s, region, o.lab),
          region, loadedProfiles: o.profilesOf(s), outDir: o.outDir, modelPath: o.modelPath,
          repeat: { index, of: o.repeat, group }, progress: o.say, onProgress: o.onProgress, signal: o.signal,
        });
        outcomes.push(outcome);
        result.runDirs.push(outcome.dir);
        m.runs.push(readCheckRun(outcome.dir));
      };
      for (let i = 1; i <= o.repeat && !o.signal?.aborted; i++) await once(i);
      for (let retry = 1; retry <= s.retries && !o.signal?.aborted; retry++) {
        const pending = judgeMeasurement(m, true).filter((j) => j.judgement.verdict === 'retry');
        if (pending.length === 0) break;
        o.say(`${s.scenario.name} in ${region}: measuring again for ${pending.map((p) => `"${p.x.name}" (${p.judgement.reason})`).join(', ')}`);
        await once(o.repeat + retry);
      }
      m.seconds = (Date.now() - t0) / 1000;
      result.measurements.push(m);
      if (outcomes.length > 1 && !o.signal?.aborted) result.voteFiles.push(writeRunVote(o.outDir, group, o.repeat, outcomes).path);
    }
  }
  return result;
}
