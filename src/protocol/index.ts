export * from './codes.js';
export * from './errors.js';
export * from './schemas.js';
export * from './paths.js';
export * from './server-schemas.js';
export * from './statuses.js';
