import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** A form-associated element's value and validity at a moment. */
export interface FormValue {
  value: string | null;
  required: boolean;
  /** Shown by the browser when the element is required and has no value. */
  missing: string;
  /** Where the browser points the validation message (an element in the shadow root). */
  anchor?: HTMLElement | null | undefined;
}

/**
 * Keeps a form-associated element's (`static formAssociated = true`) value and validity in its
 * `ElementInternals` in step with what it renders: after every update, `setFormValue`, and `setValidity`
 * with `valueMissing` while it is required and has no value. The element itself implements the form
 * callbacks (`formResetCallback`, `formStateRestoreCallback`, `formDisabledCallback`).
 */
export class FormValueController implements ReactiveController {
  constructor(
    host: ReactiveControllerHost,
    private readonly internals: ElementInternals,
    private readonly readValue: () => FormValue,
  ) {
    host.addController(this);
  }

  hostUpdated() {
    const { value, required, missing, anchor } = this.readValue();
    this.internals.setFormValue(value);
    if (required && !value) this.internals.setValidity({ valueMissing: true }, missing, anchor ?? undefined);
    else this.internals.setValidity({});
  }
}
