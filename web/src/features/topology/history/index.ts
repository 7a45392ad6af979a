export { HealthHistorySlot } from './health-history-strip';
