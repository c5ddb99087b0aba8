import type { ReactiveController } from 'lit';
import type { ProxyHost } from '../../../src/elements/shared/proxy-client.js';

/** A bare controller host: what the elements give their controllers, without an element. */
export class TestHost implements ProxyHost {
  proxy = '/merchant-elements';
  token = 'tok_123';
  updates = 0;
  readonly controllers: ReactiveController[] = [];
  readonly updateComplete = Promise.resolve(true);
  /** Connected from the start, as an element in the page is. */
  addController(c: ReactiveController) {
    this.controllers.push(c);
    c.hostConnected?.();
  }
  removeController() {}
  requestUpdate() {
    this.updates++;
  }
  disconnect() {
    this.controllers.forEach((c) => c.hostDisconnected?.());
  }
}
