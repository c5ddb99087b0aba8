export * from './schemas/index.js';
export type * from './types.js';
export { CIRCUIT_CALLS, PROVIDER_INTERFACES } from './types.js';
export * from './errors.js';
export * from './error-mapping.js';
export * from './fields.js';
export * from './endpoints.js';
export {
  createProviderClient,
  providerClientConfigSchema,
  type ClosableProviderClient,
  type ProviderClientConfig,
} from './client.js';
export type { ProviderLogger } from './http.js';
