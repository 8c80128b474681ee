export * from './calendar.ts';
export * from './duration.ts';
export * from './errors.ts';
export * from './instant.ts';
export * from './interval.ts';
export * from './key-encoding.ts';
export { formatYear, significantFractionDigits } from './instant-formatter.ts';
export { MAX_EPOCH_SECONDS, MIN_EPOCH_SECONDS } from './epoch-seconds.ts';
