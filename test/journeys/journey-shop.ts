// The hooks a journey file shares: one Chromium for the file, a fresh demo shop for each journey, closed after
// it whether it passed or not.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type ShopVisit, type VisitOptions, launchChromium, visitShop } from './shop-browser.js';

/** What a journey file gets: the browser, and a fresh shop with a customer on it when a journey asks. */
export interface JourneyShop {
  readonly browser: Browser;
  visit(options: VisitOptions): Promise<ShopVisit>;
}

/** Registers the file's hooks (call it in the `describe`). */
export function journeyShop(): JourneyShop {
  let browser: Browser | undefined;
  let current: ShopVisit | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  afterAll(() => browser?.close());
  return {
    get browser() {
      return browser!;
    },
    async visit(options) {
      return (current = await visitShop(browser!, options));
    },
  };
}
