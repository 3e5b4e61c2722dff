import { afterAll } from 'vitest';
import { removeTmpDirs } from './tmp.js';

// Run before each test file (vitest.config.ts): its temporary folders go once its tests are done. Hooks of a
// setup file are registered first and so run after the file's own afterAll, which may still use them.
afterAll(removeTmpDirs);
