// The main entry: registers the three elements, in English. French is `translations/fr.js`, imported
// beside it (or `cdn/fr.js` on a script-tag page), so that an English page does not download it. Each
// element is also importable alone (`merchant-elements/otp-verify`…).
export * from './otp-verify/index.js';
export * from './pay-by-mobile/index.js';
export * from './checkout-button/index.js';
export { registerTranslation } from './shared/localize.js';
