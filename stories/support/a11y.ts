// What axe checks on every story, the same in the a11y addon's panel and in test/stories/stories.test.ts.

/** Rules switched off, each with why. */
export const EXCLUDED_RULES: Record<string, string> = {};

/** axe-core's rule configuration from EXCLUDED_RULES. */
export const axeRules = Object.fromEntries(Object.keys(EXCLUDED_RULES).map((id) => [id, { enabled: false }]));
