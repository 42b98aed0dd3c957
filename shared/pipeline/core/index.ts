export * from './bucket-layout.js';
export * from './error-text.js';
export * from './keys.js';
export * from './ports.js';
export * from './records.js';
export * from './row-results.js';
export * from './same-product.js';
export * from './service-stop.js';
