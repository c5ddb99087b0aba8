import { elementStyles } from '../shared/styles.js';

export const payByMobileStyles = elementStyles('pay-by-mobile', ':host{background:var(--surface)}[part~=amount]{font-size:1.5em;font-weight:700}[part~=account]{flex-basis:100%}progress{display:block;inline-size:100%;margin-block-start:.75rem;accent-color:var(--accent)}.next{margin-block-start:1rem}');
