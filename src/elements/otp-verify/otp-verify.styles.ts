import { css } from 'lit';
import { baseStyles, themeStyles } from '../shared/styles.js';

export const otpVerifyStyles = [
  themeStyles('otp-verify'),
  baseStyles,
  css`
:host{background:var(--surface)}
[part~=code-input]{letter-spacing:.3em;font-variant-numeric:tabular-nums}
`,
];
