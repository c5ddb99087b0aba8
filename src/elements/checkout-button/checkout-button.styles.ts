import { css } from 'lit';
import { baseStyles, themeStyles } from '../shared/styles.js';

export const checkoutButtonStyles = [
  themeStyles('checkout-button'),
  baseStyles,
  css`
:host{display:inline-block}
[part~=button]{inline-size:100%;padding-inline:1.5rem}
`,
];
