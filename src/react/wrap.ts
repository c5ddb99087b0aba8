// What the React wrappers share: @lit/react's createComponent bound to the application's React.
import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
// Every React entry speaks French with `lang="fr"`, as the main entry does: registered here, where every
// wrapper passes (an entry that only re-exports is skipped whole by a bundler, its side effects with it).
import '../elements/translations/fr.js';

/** A React component for a registered element: its properties as props, its events (`events`) as callbacks. */
export function wrap<I extends HTMLElement, E extends Record<string, EventName>>(displayName: string, tagName: string, elementClass: new () => I, events: E) {
  return createComponent({ react: React, tagName, elementClass, events, displayName });
}
