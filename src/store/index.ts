export * from './types.ts';
export { locationWords } from './location-words.ts';
export { LevelTimelineStore } from './level-store.ts';
export type { LevelTimelineStoreOptions, RootDatabase } from './level-store.ts';
