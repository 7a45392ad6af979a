import { teamsStep } from '../../teams.js';
import type { LinkStep } from '../types.js';
import { checksStep } from './checks.js';
import { configsStep } from './configs.js';
import { selectorsStep } from './components.js';

/** The link steps of a run, in the run's order (after the components are saved); one line per step. */
export const LINK_STEPS: LinkStep[] = [
  selectorsStep,
  checksStep,
  configsStep,
  teamsStep,
];
