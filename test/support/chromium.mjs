// The one place that says how tests, configs and benchmarks start a browser: Debian's Chromium (nothing here
// may download one), headless, and kept off the network it cannot reach.

/** Path of the system's Chromium (`CHROMIUM_PATH` to use another). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

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

/** Launch options for playwright-core's `chromium.launch` and puppeteer's `launch`. */
export const chromiumLaunchOptions = () => ({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
