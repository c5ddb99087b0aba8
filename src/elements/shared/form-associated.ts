import type { PropertyDeclarations, PropertyValues } from 'lit';
import { MerchantElement } from './merchant-element.js';

/** A form-associated element's value and validity at a moment. */
export interface FormValue {
  value: string | null;
  /** Shown by the browser when the element is required and has no value. */
  missing: string;
  /** Where the browser points the validation message (an element in the shadow root). */
  anchor?: HTMLElement | null | undefined;
}

/**
 * A merchant element that takes part in forms (`static formAssociated = true`, Web Awesome's and Material
 * Web's way): `name` and `required`, the form API forwarded from `ElementInternals`, and `disabled` while
 * a disabled fieldset or form holds it. After every update its value and validity ({@link formValue}) go to
 * its `ElementInternals`: `setFormValue`, and `setValidity` with `valueMissing` while it is required and has
 * no value. The element implements `formResetCallback` and `formStateRestoreCallback`.
 */
export abstract class FormAssociatedElement<S extends string> extends MerchantElement<S> {
  static formAssociated = true;
  static override properties: PropertyDeclarations = {
    name: { reflect: true },
    required: { type: Boolean, reflect: true },
    formDisabled: { state: true },
  };

  /** Name of the form field that receives the element's value. */
  name?: string;

  /** When set, the form is invalid (`valueMissing`) until the element has a value. */
  required = false;

  /** True while a disabled fieldset or form holds the element. */
  protected formDisabled = false;

  /** The form the element belongs to. */
  get form() {
    return this.internals.form;
  }
  get validity() {
    return this.internals.validity;
  }
  checkValidity() {
    return this.internals.checkValidity();
  }
  reportValidity() {
    return this.internals.reportValidity();
  }

  formDisabledCallback(disabled: boolean) {
    this.formDisabled = disabled;
  }

  /** The element's value and validity as it renders now. */
  protected abstract formValue(): FormValue;

  protected override updated(changed: PropertyValues<this>) {
    super.updated(changed);
    const { value, missing, anchor } = this.formValue();
    this.internals.setFormValue(value);
    if (this.required && !value) this.internals.setValidity({ valueMissing: true }, missing, anchor ?? undefined);
    else this.internals.setValidity({});
  }
}
