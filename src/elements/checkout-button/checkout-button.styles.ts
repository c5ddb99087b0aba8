import { elementStyles } from '../shared/styles.js';

export const checkoutButtonStyles = elementStyles('checkout-button', ':host{display:inline-block}[part~=button]{inline-size:100%;padding-inline:1.5rem}');
