// The minified builds rename the elements' internal members (scripts/build/mangle-members.ts): only names no
// code outside the elements can reach. The CDN pages of loader.test.ts run the renamed elements in Chromium.
import { describe, expect, it } from 'vitest';
import { internalMembers, memberNames } from '../../scripts/build/mangle-members.js';
import { bundle } from '../../scripts/check-size.js';
import { ROOT } from '../../scripts/build/bundles.js';

const names = internalMembers();

describe('the internal members the minified builds rename', () => {
  it("are the elements' private and protected members that only their own code names", () => {
    // <otp-verify>'s focus flag and countdowns, the proxy client's controller, the status stream's loop, and a
    // reactive state that `static properties` declares (its key there is the member itself).
    expect(names).toEqual(expect.arrayContaining(['refocus', 'resendCountdown', 'waitCountdown', 'calls', 'run', 'failure']));
  });

  it('are not held back by a word of text that names no property', () => {
    // <pay-by-mobile>'s `still` is a word of its sentences ("may still be open"), `busy` one of an attribute
    // (`aria-busy`), `account` a part's name (`part=account`): no code reads a property by them.
    expect(names).toEqual(expect.arrayContaining(['still', 'busy', 'account']));
  });

  it('leave out what a name outside them reaches: Lit, the DOM, the protocol, strings tables, overrides', () => {
    const kept = {
      host: "Lit's render options name it too",
      read: 'the status stream calls reader.read() of the DOM',
      reset: 'a DOM member (HTMLFormElement.reset)',
      timedOut: "a key of <pay-by-mobile>'s strings table, which pages override by name",
      recipient: "a field of the protocol's bodies, and a token's claim read by a string (tokenClaims(token)['recipient'])",
      step: 'a DOM member (HTMLInputElement.step)',
      code: "a field of the protocol's bodies",
      willUpdate: 'an override: Lit calls it by name',
    };
    const { reserved } = memberNames();
    for (const [name, why] of Object.entries(kept)) {
      expect(reserved, `${name}: ${why}`).toContain(name);
      expect(names, `${name}: ${why}`).not.toContain(name);
    }
    // One letter (the elements' `t`, their words): nothing to gain.
    expect(names).not.toContain('t');
  });

  it('are gone from the one-file build, while the public members stay', async () => {
    // The build as npm run build makes it; the variable is put back for the files this worker runs next.
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'production';
    let code: string;
    try {
      code = await bundle(`${ROOT}src/elements/index.ts`);
    } finally {
      if (before === undefined) delete process.env['NODE_ENV'];
      else process.env['NODE_ENV'] = before;
    }
    for (const name of names) expect(code, name).not.toMatch(new RegExp(`\\.${name}\\b`));
    for (const name of ['requestUpdate', 'deliveryPoll', 'lateInterval', 'navigate', 'strings']) expect(code, name).toMatch(new RegExp(`\\.${name}\\b`));
  }, 60_000);
});
