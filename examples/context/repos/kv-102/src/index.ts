export { Client, type RetryPolicy } from './client.js';
