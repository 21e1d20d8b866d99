/**
 * The provisional model shipped in models/ccbrowse-model.json: trained on SYNTHETIC
 * series of the known shapes under both Nebby profiles (50 ms and 100 ms one-way delay,
 * 200 kbit/s, 2 BDP buffer). It exists so the pipeline runs end to end before the lab
 * produces ground-truth traces; replace it with a lab-trained model.
 */
import { createRng } from './prng.js';
import { trainModel, type LabelledSeries, type Model } from './model.js';
import { akamaiSeries, bbrV1Series, bbrV2Series, copaSeries, cubicSeries, renoSeries } from './synthetic/index.js';
import { AKAMAI } from './classifiers/akamai.js';
import { BBR_V1, BBR_V2 } from './classifiers/bbr.js';
import { COPA } from './classifiers/copa.js';

/** Seeds 1..perProfile per class and profile; tests use seeds >= 1000 to stay out of sample. */
export function provisionalTrainingSet(perProfile = 12): LabelledSeries[] {
  const out: LabelledSeries[] = [];
  const rng = createRng(20240601);
  const profiles = [
    { baseRttS: 0.12, durationS: 60 },
    { baseRttS: 0.22, durationS: 120 },
  ];
  for (const prof of profiles) {
    for (let seed = 1; seed <= perProfile; seed++) {
      const noise = rng.uniform(0.01, 0.06);
      const capacityJitter = rng.uniform(0.03, 0.12);
      const path = { seed, baseRttS: prof.baseRttS, durationS: prof.durationS, noise };
      out.push({ label: 'NewReno', series: renoSeries({ ...path, capacityJitter }) });
      out.push({ label: 'CUBIC', series: cubicSeries({ ...path, capacityJitter }) });
      // Rule-based classes: recorded in trainedOn; their fit() is a no-op today.
      if (seed <= 2) {
        const short = { ...path, durationS: 40 };
        out.push({ label: BBR_V1, series: bbrV1Series(short) });
        out.push({ label: BBR_V2, series: bbrV2Series(short) });
        out.push({ label: AKAMAI, series: akamaiSeries(short) });
        out.push({ label: COPA, series: copaSeries(short) });
      }
    }
  }
  return out;
}

export function buildProvisionalModel(): Model {
  return trainModel(provisionalTrainingSet(), {
    provenance: 'synthetic',
    source: 'src/classify/synthetic (seeded fluid-model Reno/CUBIC, parametric BBRv1/v2, AkamaiCC-like, Copa), Nebby profiles 200 kbit/s, 2 BDP, base RTT 120/220 ms',
    note: 'PROVISIONAL: trained on synthetic shapes, not on real servers. Replace with a model trained on lab ground-truth traces (trainModel) before trusting verdicts.',
  });
}
