// `npm run analyze`: custom-elements.json from the elements' JSDoc contracts (attributes, properties,
// events, parts, CSS properties, custom states), for Storybook docs and the React wrappers.
export default {
  globs: ['src/elements/**/*.ts'],
  exclude: ['src/elements/**/*.test.ts'],
  outdir: '.',
  litelement: true,
};
