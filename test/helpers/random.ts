export { seeded } from '../../src/metrics/seeded.js';
