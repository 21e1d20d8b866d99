/**
 * What a check will do, from the files it was given: each scenario once (however many files
 * name it), with every rule that applies to it, expanded to one expectation per asset type
 * and host pattern (each its own test case), labels read and checked, and the line of the
 * file each came from (for errors, JUnit and CI annotations). Everything is checked here,
 * before anything is measured: a bad label or a rule naming an unknown scenario exits 2.
 */
import { dirname, resolve } from 'node:path';
import { loadCheckInput, loadScenario } from '../scenario/load.js';
import { EXPECTATION_DEFAULTS, type ExpectationRule, type ExpectationSet, type Expectations, type NonAnswerPolicy } from '../scenario/expectations.js';
import type { Scenario } from '../scenario/schema.js';
import { BadInputError } from '../util/errors.js';
import { lineOf, shownPath } from '../util/user-file.js';
import { describeSpecs, parseLabelSpec, type LabelSpec } from './labels.js';

export interface PlannedExpectation {
  /** Unique in the check: "<scenario> <name>". */
  id: string;
  name: string;
  /** Where it was written (file as shown to the user, 1-based line of its rule). */
  source: { file: string; line?: number };
  assetType?: string;
  /** A host or a pattern with `*`. */
  host?: string;
  cca: LabelSpec[];
  minConfidence: number;
  onNonAnswer: NonAnswerPolicy;
  /** Only these regions (undefined: every region checked). */
  regions?: string[];
}

export interface PlannedScenario {
  /** Absolute path. */
  path: string;
  /** As shown to the user. */
  file: string;
  scenario: Scenario;
  expectations: PlannedExpectation[];
  /** The regions the files ask for (undefined: none said). */
  regions?: string[];
  /** How many more measurements "retry" rules may ask for in one region. */
  retries: number;
}

export interface CheckPlan {
  /** The check's name in reports. */
  name: string;
  /** The files given, as shown. */
  inputs: string[];
  scenarios: PlannedScenario[];
}

const asList = <T>(x: T | T[] | undefined): Array<T | undefined> => (x === undefined ? [undefined] : Array.isArray(x) ? x : [x]);

/** 1-based lines of each rule's `cca` under `path` (the rules' own lines, in order). */
function ruleLines(source: string, path: string[], count: number): Array<number | undefined> {
  const start = lineOf(source, path);
  const lines = source.split('\n');
  const found: number[] = [];
  for (let i = (start ?? 1) - 1; i < lines.length && found.length < count; i++) {
    if (/(^|[\s{,])['"]?cca['"]?\s*:/.test(lines[i])) found.push(i + 1);
  }
  return Array.from({ length: count }, (_, i) => found[i]);
}

interface Source { file: string; source: string; rulesPath: string[]; set: ExpectationSet | Expectations }

function expand(src: Source, rule: ExpectationRule, index: number, line: number | undefined): PlannedExpectation[] {
  let cca: LabelSpec[];
  try {
    cca = asList(rule.cca).map((c) => parseLabelSpec(c!));
  } catch (err) {
    throw new BadInputError(`invalid expectations ${src.file}:\n  - ${src.file}${line ? `:${line}` : ''}: ${[...src.rulesPath, index].join('.')}.cca: ${(err as Error).message}`,
      'see docs/check.md for the labels and families');
  }
  const types = asList(rule.assetType);
  const hosts = asList(rule.host);
  const many = types.length * hosts.length > 1;
  return types.flatMap((assetType) => hosts.map((host) => {
    const subject = assetType && host ? `${assetType} from ${host}` : (assetType ?? host)!;
    const name = rule.name ? (many ? `${rule.name} (${subject})` : rule.name) : `${subject} is ${describeSpecs(cca)}`;
    return {
      id: '', name, source: { file: src.file, line }, assetType, host, cca,
      minConfidence: rule.minConfidence ?? src.set.minConfidence ?? EXPECTATION_DEFAULTS.minConfidence,
      onNonAnswer: rule.onNonAnswer ?? src.set.onNonAnswer ?? EXPECTATION_DEFAULTS.onNonAnswer,
      regions: rule.regions,
    };
  }));
}

function rulesOf(src: Source, applies: (r: ExpectationRule) => boolean): PlannedExpectation[] {
  const rules = src.set.rules as ExpectationRule[];
  const lines = ruleLines(src.source, src.rulesPath, rules.length);
  return rules.flatMap((r, i) => (applies(r) ? expand(src, r, i, lines[i]) : []));
}

/** Loads and checks the files given to `ccbrowse check`. */
export async function loadCheckPlan(files: string[]): Promise<CheckPlan> {
  if (files.length === 0) throw new BadInputError('nothing to check', 'give an expectations file (defineExpectations) or a scenario with `expect`');
  const byPath = new Map<string, PlannedScenario>();
  const inputs: string[] = [];
  let name: string | undefined;

  const scenarioAt = async (path: string, loaded?: { scenario: Scenario; source: string }): Promise<PlannedScenario> => {
    let s = byPath.get(path);
    if (s) return s;
    const scenario = loaded?.scenario ?? await loadScenario(path);
    s = { path, file: shownPath(path), scenario, expectations: [], retries: -1 };
    byPath.set(path, s);
    if (scenario.expect) {
      // The scenario's own expectations always apply, once, however it was named.
      const source = loaded?.source ?? (await loadCheckInput(path)).source;
      s.expectations.push(...rulesOf({ file: s.file, source, rulesPath: ['expect', 'rules'], set: scenario.expect }, () => true));
      addSetOptions(s, scenario.expect);
    }
    return s;
  };

  for (const f of files) {
    const input = await loadCheckInput(f);
    inputs.push(shownPath(input.path));
    if (input.kind === 'scenario') {
      const s = await scenarioAt(input.path, input);
      if (!input.scenario.expect) {
        throw new BadInputError(`scenario ${s.file} has no \`expect\``, 'add `expect: { rules: [...] }` to it, or give an expectations file that names it (docs/check.md)');
      }
      continue;
    }
    const e = input.expectations;
    const file = shownPath(input.path);
    name ??= e.name;
    const planned = await Promise.all(e.scenarios.map((p) => scenarioAt(resolve(dirname(input.path), p))));
    const names = new Set(planned.map((s) => s.scenario.name));
    e.rules.forEach((r, i) => {
      if (r.scenario !== undefined && !names.has(r.scenario)) {
        throw new BadInputError(`invalid expectations ${file}: rules.${i}.scenario: "${r.scenario}" is not one of its scenarios (${[...names].join(', ')})`);
      }
    });
    for (const s of planned) {
      s.expectations.push(...rulesOf({ file, source: input.source, rulesPath: ['rules'], set: e }, (r) => r.scenario === undefined || r.scenario === s.scenario.name));
      addSetOptions(s, e);
    }
  }
  const scenarios = [...byPath.values()];
  for (const s of scenarios) {
    const seen = new Map<string, number>();
    for (const x of s.expectations) {
      const base = `${s.scenario.name} ${x.name}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      x.id = n === 1 ? base : `${base} #${n}`;
    }
    if (s.retries < 0) s.retries = EXPECTATION_DEFAULTS.retries; // no file said

  }
  return { name: name ?? (inputs.length === 1 ? inputs[0] : 'ccbrowse check'), inputs, scenarios };
}

function addSetOptions(s: PlannedScenario, set: ExpectationSet | Expectations): void {
  if (set.regions) s.regions = [...new Set([...(s.regions ?? []), ...set.regions])];
  if (set.retries !== undefined) s.retries = Math.max(s.retries, set.retries);
}

/**
 * A scenario's profiles must include one whose verdicts mean something: through profiles all
 * marked not for classification every flow is Unknown, and the check could only ever say
 * inconclusive after measuring. Refused before anything runs (exit 2).
 */
export function requireClassifyingProfile(scenarioFile: string, profiles: ReadonlyArray<{ name: string; forClassification: boolean; classificationNote?: string }>): void {
  if (profiles.length === 0 || profiles.some((p) => p.forClassification)) return;
  const why = profiles.map((p) => `${p.name}${p.classificationNote ? ` (${p.classificationNote})` : ''}`).join(', ');
  throw new BadInputError(`${scenarioFile}: no profile of the check is for classification: ${why}; every verdict would be Unknown`,
    'add a profile the lab measured controllers through (--profile nebby-50,nebby-100, the default)');
}
