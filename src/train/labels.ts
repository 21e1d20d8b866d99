/**
 * Lab controller -> classifier label. The classifier's labels are the names the report shows
 * (Nebby's); the lab names controllers by their Linux/stack module names.
 */
const TCP_LABELS: Readonly<Record<string, string>> = {
  reno: 'NewReno',
  cubic: 'CUBIC',
  bbr: 'BBRv1',
  vegas: 'Vegas',
  westwood: 'Westwood',
  htcp: 'HTCP',
  bic: 'BIC',
  illinois: 'Illinois',
  veno: 'Veno',
  highspeed: 'HSTCP',
  scalable: 'Scalable',
  yeah: 'YeAH',
  bbr2: 'BBRv2',
  bbr3: 'BBRv3',
  fast: 'AkamaiCC-like',
  copa: 'Copa',
  // Open-set strangers (labs/open-set.ts): no class is trained on them by default; their
  // label is what a correct "right family or Unknown" answer is judged against.
  hybla: 'Hybla',
  cdg: 'CDG',
  lp: 'LP',
  nv: 'NV',
  dctcp: 'DCTCP',
};

/** QUIC stacks' controllers map to the same labels (quinn newreno is NewReno, ...). */
const QUIC_LABELS: Readonly<Record<string, string>> = { newreno: 'NewReno', reno: 'NewReno', cubic: 'CUBIC', bbr: 'BBRv1' };

export function labelFor(protocol: 'tcp' | 'quic', cca: string): string {
  const l = (protocol === 'tcp' ? TCP_LABELS : QUIC_LABELS)[cca];
  if (!l) throw new Error(`no classifier label for ${protocol} controller '${cca}'`);
  return l;
}

/** One lab target a training or benchmark run probes. */
export interface LabTarget {
  /** Origin name in the lab (tcp-cubic, quinn-bbr, ...). */
  origin: string;
  protocol: 'tcp' | 'quic';
  stack: string;
  cca: string;
  label: string;
  host: string;
}
