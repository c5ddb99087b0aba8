/**
 * The elements' events: a typed `detail`, bubbling out of the shadow root. Each element names its events
 * as aliases of this class (`OtpSentEvent = MerchantEvent<OtpSentDetail>`) and maps them in
 * `GlobalEventHandlersEventMap`; one class rather than one each keeps the bundles small.
 */
export class MerchantEvent<D> extends Event {
  constructor(
    type: string,
    readonly detail: D,
  ) {
    super(type, { bubbles: true, composed: true });
  }
}
