// The Vue demo: the elements register themselves; Vue leaves their tags alone (isCustomElement in
// demo/vite.config.ts) and binds their properties and events like any element's.
import 'merchant-elements';
import { createApp } from 'vue';
import App from './App.vue';

createApp(App).mount('#app');
