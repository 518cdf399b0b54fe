export { sign, verify } from './signature.js';
