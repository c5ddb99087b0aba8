'use client';
// What the React wrappers share: @lit/react's createComponent bound to the application's React, typed here
// with React's own types. The props are the element's documented API, not every member of its class:
// @lit/react's typing offers ~300 props, Lit's internals (`renderRoot`, `requestUpdate`) and the read-only
// `state` among them. The build bundles @lit/react in, so these declarations must not name it.
import { createComponent } from '@lit/react';
import * as React from 'react';

/** A wrapper's callbacks: prop name (`onPaymentCompleted`) to the event it receives. */
export type WrapperEvents = Record<string, Event>;

/**
 * A wrapper's props: React's for any HTML element (`id`, `className`, `style`, `aria-*`, `children`), the
 * element's documented properties `P`, and its events `E` as callbacks.
 */
export type WrapperProps<El extends HTMLElement, P extends keyof El, E extends WrapperEvents> = Omit<
  React.HTMLAttributes<El>,
  P | keyof E
> &
  Partial<Pick<El, P>> & { [K in keyof E]?: (event: E[K]) => void };

/** A React component for a custom element, its ref the element. */
export type Wrapper<El extends HTMLElement, P extends keyof El, E extends WrapperEvents> = React.ForwardRefExoticComponent<
  WrapperProps<El, P, E> & React.RefAttributes<El>
>;

/** A React component for a registered element: its documented properties `P` as props, `events` as callbacks. */
export function wrap<El extends HTMLElement, P extends keyof El, E extends WrapperEvents>(
  displayName: string,
  tagName: string,
  elementClass: new () => El,
  events: { [K in keyof E]: string },
): Wrapper<El, P, E> {
  return createComponent({ react: React, tagName, elementClass, events, displayName }) as unknown as Wrapper<El, P, E>;
}
