export { Store, ftsQuery, type NewEvent, type EventEffects, type LearnedMcpTool } from './store';
export { migrate, schemaVersion, MIGRATIONS } from './migrations';
export { newId } from './ids';
export { StoreFault, isLockError, LOCK_BUDGET_MS, LOCK_TRY_MS, START_LOCK_WAIT_MS, type FaultKind } from './faults';
