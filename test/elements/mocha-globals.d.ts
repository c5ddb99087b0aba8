// The Mocha globals @web/test-runner provides in the page (no @types/mocha installed).
declare function describe(title: string, fn: (this: unknown) => void): void;
declare function it(title: string, fn: (this: unknown) => void | Promise<unknown>): void;
declare function before(fn: () => void | Promise<unknown>): void;
declare function after(fn: () => void | Promise<unknown>): void;
declare function beforeEach(fn: () => void | Promise<unknown>): void;
declare function afterEach(fn: () => void | Promise<unknown>): void;
declare namespace describe {
  function only(title: string, fn: () => void): void;
  function skip(title: string, fn: () => void): void;
}
declare namespace it {
  function only(title: string, fn: () => void | Promise<unknown>): void;
  function skip(title: string, fn: () => void | Promise<unknown>): void;
}
