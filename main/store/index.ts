export { Store, ftsQuery, type NewEvent, type EventEffects, type LearnedMcpTool } from './store';
export { migrate, schemaVersion, MIGRATIONS } from './migrations';
export { newId } from './ids';
