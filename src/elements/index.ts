// The main entry: registers the three elements and the French words. Each element is also importable
// alone (`merchant-elements/otp-verify`…), in English unless `translations/fr.js` is imported too.
export * from './otp-verify/index.js';
export * from './pay-by-mobile/index.js';
export * from './checkout-button/index.js';
export { fr } from './translations/fr.js';
export { registerTranslation } from './shared/localize.js';
