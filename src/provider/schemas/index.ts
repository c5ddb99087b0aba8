export * from './common.js';
export * from './messaging.js';
export * from './gateway.js';
export * from './checkout.js';
