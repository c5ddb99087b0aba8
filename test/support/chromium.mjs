// The one place that says how tests, configs and benchmarks start a browser: Debian's Chromium (nothing here
// may download one), headless, and kept off the network it cannot reach.
import { existsSync } from 'node:fs';

/** Debian's full browser (package chromium). */
export const FULL_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Debian's Chromium headless shell (package chromium-headless-shell): the same version and the same Blink as
 * the full browser, without the browser around the page, what Playwright's own headless runs use. The tests'
 * browsers took half of npm test's CPU; for the same pages the shell takes about half what the full browser
 * took (the accessibility journey: 112 → 65 CPU-s), which kept npm test under its ten minutes.
 */
export const HEADLESS_SHELL_PATH = '/usr/bin/chromium-headless-shell';

/** The tests' browser (`CHROMIUM_PATH` to use another): the headless shell where installed, else the full browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || (existsSync(HEADLESS_SHELL_PATH) ? HEADLESS_SHELL_PATH : FULL_CHROMIUM_PATH);

/** Flags for every launch: no sandbox (root in CI), no GPU, no background traffic to unreachable hosts. */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Launch options for playwright-core's `chromium.launch` and puppeteer's `launch`: the tests' browser, or with
 * `full` the full browser a customer has (the benchmarks measure there; `CHROMIUM_PATH` still wins).
 */
export const chromiumLaunchOptions = ({ full = false } = {}) => ({
  executablePath: full ? process.env.CHROMIUM_PATH || FULL_CHROMIUM_PATH : CHROMIUM_PATH,
  args: [...CHROMIUM_ARGS],
});
