export * from './types.ts';
export { locationWords } from './location-words.ts';
export { LevelTimelineStore } from './level/level-timeline-store.ts';
export type { LevelTimelineStoreOptions, RootDatabase } from './level/level-timeline-store.ts';
