// Stage: every request gets an id (`X-Request-Id`, the envelope's request_id), unique in this
// process and unlike another process's (a random prefix), short and ordered within a process.

let seq = 0;
const prefix = Math.random().toString(36).slice(2, 8);
export const genReqId = () => `req_${prefix}${(++seq).toString(36).padStart(6, '0')}`;
