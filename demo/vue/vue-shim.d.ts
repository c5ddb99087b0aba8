// Lets TypeScript import single-file components; @vitejs/plugin-vue compiles them.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent;
  export default component;
}
