/** A committed lab-series fixture of single flows (`{ note, flows }`, gzipped JSON): each flow is a dataset entry with its profile. */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { DatasetEntry } from '../../../src/train/dataset.js';

export type ProfileFlow = DatasetEntry & { profile: string };

export function labSeriesFlows(name: string): ProfileFlow[] {
  const file = new URL(`../../fixtures/lab-series/${name}`, import.meta.url);
  return (JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as { flows: ProfileFlow[] }).flows;
}
