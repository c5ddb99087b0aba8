import { elementStyles } from '../shared/styles.js';

export const otpVerifyStyles = elementStyles('otp-verify', ':host{background:var(--surface)}[part~=code-input]{letter-spacing:.3em;font-variant-numeric:tabular-nums}');
