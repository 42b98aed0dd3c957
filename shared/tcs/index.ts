/** Public surface of the Tariff Classification Service client. */
export * from './client.js';
export * from './errors.js';
export * from './retry.js';
export * from './schemas.js';
