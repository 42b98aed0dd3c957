export * from './dispatch-rows.js';
export * from './execution-names.js';
export * from './slot-leases.js';
