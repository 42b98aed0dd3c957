export * from './dispatch-rows.js';
export * from './dispatch-run.js';
export * from './execution-names.js';
export * from './free-slots.js';
export * from './rows-window.js';
export * from './slot-leases.js';
export * from './stale-messages.js';
export * from './stopped-rows.js';
