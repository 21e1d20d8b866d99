/** The zod schema and defaults of the shared rate measurements (see rate.ts). */
import { z } from 'zod';
import type { RateOptions } from '../rate.js';

export const rateOptionsSchema = z.object({
  dipMinDepth: z.number().min(0).max(1),
  dipMaxSeconds: z.number().nonnegative(),
  dipMaxRtts: z.number().nonnegative(),
  detrendRtts: z.number().positive(),
  maxLagRtts: z.number().positive(),
  cruiseTolerance: z.number().positive(),
});

export const defaultRateOptions: RateOptions = {
  dipMinDepth: 0.4,
  dipMaxSeconds: 0.2,
  dipMaxRtts: 3,
  detrendRtts: 16,
  maxLagRtts: 12,
  cruiseTolerance: 0.1,
};
