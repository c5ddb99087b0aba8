export { createMerchantProxy, type MerchantProxy } from './create-proxy.js';
export {
  ConfigError,
  DEFAULT_LIMITS,
  resolveConfig,
  type LimitName,
  type LimitPolicy,
  type ProxyConfig,
  type ResolvedProxyConfig,
} from './config.js';
export { configFromEnv } from './config-env.js';
export type { CheckoutUpdate, OtpSendCheck, PaymentUpdate, ProxyHooks } from './context.js';
export { ProxyError } from './errors.js';
export { maskPhone, normalisePhone } from './phone.js';
export { MemoryStore, RedisStore, createStore, type ProxyStore } from './store/index.js';
export type { CheckoutTokenInput, OtpTokenInput, PaymentTokenInput } from './tokens/claims.js';
export type { VerifiedOtpProof } from './tokens/service.js';
export type { WebhookBody, WebhookData, WebhookType } from './notify/webhook-consumer.js';
