import { createRoot } from 'react-dom/client';
import { App } from './app.js';

// No StrictMode: its doubled effects in development would create every demo order twice.
createRoot(document.getElementById('app')!).render(<App />);
