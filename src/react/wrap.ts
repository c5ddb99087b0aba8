// What the React wrappers share: @lit/react's createComponent bound to the application's React.
import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';

/** A React component for a registered element: its properties as props, its events (`events`) as callbacks. */
export function wrap<I extends HTMLElement, E extends Record<string, EventName>>(displayName: string, tagName: string, elementClass: new () => I, events: E) {
  return createComponent({ react: React, tagName, elementClass, events, displayName });
}
