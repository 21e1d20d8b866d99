/**
 * Cron schedules of crawls: the five classic fields (minute hour day-of-month month
 * day-of-week) with `*`, lists, ranges and steps, plus @hourly/@daily/@weekly/@monthly.
 * Times are UTC: a crawl measured from five regions has no single local time.
 */

export interface Cron {
  source: string;
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Both day fields restricted: either may match (classic cron). */
  dayOr: boolean;
}

const ALIASES: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
};

/** The five fields an alias stands for (pg-boss's cron takes fields only). */
export function cronFields(source: string): string {
  return ALIASES[source.trim()] ?? source.trim();
}

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

function parseField(text: string, f: (typeof FIELDS)[number]): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`${f.name}: "${part}" is not a number, range, list or step`);
    const lo = m[1] === '*' ? f.min : Number(m[2]);
    const hi = m[1] === '*' ? f.max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? f.max : lo;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (lo < f.min || hi > f.max || lo > hi) throw new Error(`${f.name}: "${part}" is outside ${f.min}-${f.max}`);
    if (step < 1) throw new Error(`${f.name}: step must be at least 1`);
    for (let v = lo; v <= hi; v += step) out.add(f.name === 'day of week' && v === 7 ? 0 : v);
  }
  return out;
}

/** Parses a schedule; throws an Error that says which field is wrong. */
export function parseCron(source: string): Cron {
  const text = ALIASES[source.trim()] ?? source.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw new Error(`a schedule has 5 fields (minute hour day month weekday) or is @hourly/@daily/@weekly/@monthly, got "${source}"`);
  const [minutes, hours, days, months, weekdays] = parts.map((p, i) => parseField(p, FIELDS[i]));
  return { source, minutes, hours, days, months, weekdays, dayOr: parts[2] !== '*' && parts[4] !== '*' };
}

/** Whether a schedule parses (for the crawl schema's refinement), with the reason if not. */
export function cronError(source: string): string | undefined {
  try {
    parseCron(source);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function dayMatches(c: Cron, d: Date): boolean {
  const dom = c.days.has(d.getUTCDate());
  const dow = c.weekdays.has(d.getUTCDay());
  return c.dayOr ? dom || dow : dom && dow;
}

/** The first minute strictly after `after` that the schedule fires at (UTC). */
export function nextFire(c: Cron, after: Date): Date {
  const t = new Date(after.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  // At most ~4 years of minutes; day and hour mismatches skip whole days and hours.
  const limit = after.getTime() + 4 * 366 * 86_400_000;
  while (t.getTime() <= limit) {
    if (!c.months.has(t.getUTCMonth() + 1) || !dayMatches(c, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!c.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!c.minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return t;
  }
  throw new Error(`schedule "${c.source}" never fires`);
}
