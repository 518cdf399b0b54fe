// What the client asks of an HTTP transport: one request, the whole answer as text. Two
// implementations: node:http (http-transport.ts, the default) and an undici Dispatcher the
// caller passes (undici-transport.ts).

export interface WireRequest {
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | null;
  /** Longest wait for the answer's headers, and then between two chunks of its body. */
  timeoutMs: number;
}

export interface WireResponse {
  statusCode: number;
  /** Lower-case names; a repeated header is an array or joined by the transport. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface Transport {
  send(url: URL, req: WireRequest): Promise<WireResponse>;
  /** Ends its keep-alive connections. */
  close(): Promise<void>;
}
