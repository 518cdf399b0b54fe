import type { Readable } from 'node:stream';
import { ApiError } from '../errors.js';

// A JSON request body is read as text, decoded strictly as it arrives: no buffer of the whole body
// is ever made. A contiguous 1 MiB Buffer is a malloc'd block that glibc, once such a block has
// been freed, serves from an arena it rarely gives back; strings live in the V8 heap, whose large
// objects are unmapped when collected. And the bytes of bodies being read at once are bounded
// (BodyBudget), so a burst of large bodies waits for room instead of all being held together.

/** The most bytes of (decoded) request body accepted: past it, 413 request_too_large. */
export const BODY_LIMIT = 1024 * 1024;

/** Bodies declared this small are read without a reservation (connections bound their number). */
export const SMALL_BODY = 64 * 1024;

/**
 * Bytes reserved by bodies being read, over all requests. A body reserves what it may take before
 * its first byte is read (its Content-Length, or the limit when the length is unknown or the body
 * is compressed), so a reader that started can always finish; others wait in order, their sockets
 * unread (TCP pushes back on the client).
 */
export class BodyBudget {
  private used = 0;
  private readonly waiting: { n: number; go: () => void }[] = [];
  /** The most bytes reserved at once, and how many bodies had to wait (tests and benches read them). */
  readonly stats = { maxUsed: 0, waited: 0 };

  constructor(readonly bytes: number) {}

  /** Reserves `n` bytes: at once (undefined) or when given back by others (a promise). */
  take(n: number): Promise<void> | undefined {
    if (this.waiting.length === 0 && this.fits(n)) {
      this.grant(n);
      return undefined;
    }
    this.stats.waited++;
    return new Promise((go) => this.waiting.push({ n, go }));
  }

  give(n: number): void {
    this.used -= n;
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.n)) {
      const next = this.waiting.shift()!;
      this.grant(next.n);
      next.go();
    }
  }

  /** A body larger than the whole budget still goes through, alone. */
  private fits(n: number): boolean {
    return this.used === 0 || this.used + n <= this.bytes;
  }

  private grant(n: number): void {
    this.used += n;
    this.stats.maxUsed = Math.max(this.stats.maxUsed, this.used);
  }
}

const tooLarge = (limit: number) =>
  new ApiError('request_too_large', `request body is larger than ${limit} bytes`);

const notUtf8 = () =>
  new ApiError('request_invalid', 'the body is not valid UTF-8', [
    { path: ['body'], message: 'not valid UTF-8' },
  ]);

interface ReadOptions {
  /** Most bytes of (decoded) body accepted; past it, 413 request_too_large. */
  limit: number;
  /** Content-Length of an identity-encoded body, when given. */
  declared?: number | undefined;
  budget?: BodyBudget | undefined;
}

/**
 * The body as text, UTF-8 decoded strictly (invalid bytes → 400), at most `limit` bytes (→ 413,
 * decided from a declared length before reading, else at the first byte past it). Once refused,
 * the rest of the body is left to Node, which discards it after the answer.
 */
export async function readBodyText(stream: Readable, o: ReadOptions): Promise<string> {
  if (o.declared !== undefined && o.declared > o.limit) throw tooLarge(o.limit);
  const reserve = o.declared !== undefined ? o.declared : o.limit;
  const budget = reserve > SMALL_BODY ? o.budget : undefined;
  if (budget) await budget.take(reserve);
  try {
    return await new Promise<string>((resolve, reject) => {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const parts: string[] = [];
      let received = 0;
      const stop = (err: unknown) => {
        stream.removeListener('data', onData);
        stream.removeListener('end', onEnd);
        stream.removeListener('error', onError);
        stream.removeListener('close', onClose);
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        received += chunk.length;
        if (received > o.limit) return stop(tooLarge(o.limit));
        try {
          parts.push(decoder.decode(chunk, { stream: true }));
        } catch {
          stop(notUtf8());
        }
      };
      const onEnd = () => {
        stream.removeListener('close', onClose);
        stream.removeListener('error', onError);
        try {
          parts.push(decoder.decode());
        } catch {
          return reject(notUtf8());
        }
        resolve(parts.length === 1 ? parts[0]! : parts.join(''));
      };
      // The client went away before the end (Node's "aborted"): nobody reads the answer, but the
      // reservation goes back and nothing is logged as a server fault.
      const cutOff = () => new ApiError('request_invalid', 'the request body was cut off');
      const onError = (err: unknown) => stop(err instanceof ApiError ? err : cutOff());
      const onClose = () => stop(cutOff());
      stream.on('data', onData);
      stream.once('end', onEnd);
      stream.once('error', onError);
      stream.once('close', onClose);
    });
  } finally {
    budget?.give(reserve);
  }
}
