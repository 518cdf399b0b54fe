// Deep imports of undici (see undici-transport.ts): typed with undici's public types.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentImpl: typeof Agent;
  export default AgentImpl;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
