// Theme controls: the library's tokens (`--me-accent`…) and each element's own (`--otp-verify-accent`…), as
// args that a story maps to the element's `style` attribute. Only the ones set are written, so an unset token
// falls back to the element's default (light or dark after the system's colour scheme).
import type { ArgTypes, Args, Decorator } from '@storybook/web-components-vite';
import { html } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';

const TOKENS = {
  accent: 'Buttons, links, progress and focus ring.',
  radius: 'Corner radius of inputs and buttons.',
  font: 'Font family (unset: inherited from the page).',
  surface: "Background; the buttons' text colour.",
  text: 'Text colour.',
  danger: 'Error messages and invalid inputs.',
  success: 'The success message.',
} as const;
type Token = keyof typeof TOKENS;

const control = (token: Token) => (token == 'radius' || token == 'font' ? 'text' : 'color');

/**
 * Controls for the theme tokens of the element `tag`: the shared `--me-*` tokens and the element's own, which
 * win over them (their descriptions come from custom-elements.json).
 */
export function themeArgTypes(tag: string): ArgTypes {
  const argTypes: ArgTypes = {};
  for (const token of Object.keys(TOKENS) as Token[]) {
    argTypes[`--me-${token}`] = {
      control: control(token),
      description: `${TOKENS[token]} Shared by every element.`,
      table: { category: 'theme tokens' },
    };
    argTypes[`--${tag}-${token}`] = { control: control(token) };
  }
  return argTypes;
}

/** The `style` of an element: the theme args that are set. */
export const themeStyle = (args: Args) =>
  styleMap(Object.fromEntries(Object.entries(args).filter(([name, value]) => name.startsWith('--') && value)));

/**
 * A dark theme: the elements' own dark defaults (which they pick by themselves under `prefers-color-scheme:
 * dark`), set as tokens so that the story looks dark whatever the viewer's system says.
 */
export const DARK_THEME = {
  '--me-accent': '#8ab4f8',
  '--me-surface': '#1f2328',
  '--me-text': '#e6edf3',
  '--me-danger': '#ffb4a9',
  '--me-success': '#6ee7a8',
};

/** Story settings of a dark page: the dark theme tokens on the dark background. */
export const dark = { args: DARK_THEME, globals: { backgrounds: { value: 'dark' } } };

/** A right-to-left page (the elements use logical properties only). */
const rightToLeft: Decorator = (story) => html`<div dir="rtl">${story()}</div>`;

/** Story settings of a right-to-left page. */
export const rtl = {
  decorators: [rightToLeft],
  parameters: {
    docs: {
      description: {
        story: 'In a right-to-left page the layout mirrors. The words stay English (no right-to-left language ships), so their punctuation lands on the left.',
      },
    },
  },
};
