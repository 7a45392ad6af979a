import { z } from 'zod';

/** Deployment modes (DESIGN.md "Modes"). */
export const Mode = z.enum(['console', 'check-runner', 'agent']);
export type Mode = z.infer<typeof Mode>;

/** `GET /api/about` (public): the backend version and the mode the web adapts its navigation to. */
export const About = z.object({
  appVersion: z.string(),
  chartVersion: z.string().nullable(),
  mode: Mode,
});
export type About = z.infer<typeof About>;
