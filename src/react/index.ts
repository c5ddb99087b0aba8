'use client';
// `merchant-elements/react`: the three wrappers (registering all three elements). One element's page imports
// its own entry instead (`merchant-elements/react/pay-by-mobile`), which carries only that element.
// French is one import away (`merchant-elements/translations/fr`, 2 kB gzip that an English page does not
// pay for); other languages with `registerTranslation`.
export { registerTranslation } from '../elements/shared/localize.js';
export * from './otp-verify.js';
export * from './pay-by-mobile.js';
export * from './checkout-button.js';
export type * from './jsx.js';
