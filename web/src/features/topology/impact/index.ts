export { ImpactPanel } from './impact-panel';
