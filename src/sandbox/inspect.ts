import { Router } from 'express';
import type { SandboxState } from './state.js';

// PLACEHOLDER: replaced by the helper building this router.
export function inspectRouter(_state: SandboxState): Router {
  return Router();
}
