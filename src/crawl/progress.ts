/** A crawl's progress as one line: done / running / failed / left, rate and ETA. */
import type { Progress } from './queue.js';

function duration(s: number): string {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}

export function formatProgress(p: Progress): string {
  const parts = [`${p.crawlId}${p.state === 'active' ? '' : ` (${p.state})`}${p.round > 1 ? ` round ${p.round}` : ''}:`,
    `${p.done}/${p.total} done, ${p.running} running, ${p.failed} failed, ${p.left} left`];
  if (p.cancelled) parts.push(`${p.cancelled} cancelled`);
  parts.push(p.ratePerHour === null ? 'rate -' : `${p.ratePerHour.toFixed(p.ratePerHour < 10 ? 1 : 0)} jobs/h`);
  if (p.etaSeconds !== null && p.left + p.running > 0) parts.push(`ETA ${duration(p.etaSeconds)}`);
  return parts.join(', ').replace(':,', ':');
}
