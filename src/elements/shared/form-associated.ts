import type { PropertyDeclarations } from 'lit';
import { MerchantElement } from './merchant-element.js';

/**
 * A merchant element that takes part in forms (`static formAssociated = true`, Web Awesome's and Material
 * Web's way): `name` and `required`, the form API forwarded from `ElementInternals`, and `disabled` while
 * a disabled fieldset or form holds it. The element keeps its value and validity with a
 * `FormValueController` and implements `formResetCallback` and `formStateRestoreCallback`.
 */
export class FormAssociatedElement<S extends string> extends MerchantElement<S> {
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
}
