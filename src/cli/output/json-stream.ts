import type { OutStream } from '../io.js';

// Cuts a stream of JSON texts (one pretty document, or one compact value per line as `listen
// --json` writes them) into whole values as they arrive, so `--jq`, `--template` and `--json
// FIELDS` work on any command's JSON output, streaming ones included, without the command knowing.

/** Scans for the end of one JSON value; keeps its place between writes so big outputs scan once. */
export class JsonSplitter {
  private buf = '';
  private pos = 0;
  private start = -1;
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Adds text and returns the JSON texts completed by it. */
  push(chunk: string): string[] {
    this.buf += chunk;
    return this.scan(false);
  }

  /** The end of the stream: a trailing scalar is complete now. */
  end(): string[] {
    return this.scan(true);
  }

  /** Text left over that is not (yet) a whole JSON value. */
  rest(): string {
    return this.buf.trim();
  }

  private scan(final: boolean): string[] {
    const out: string[] = [];
    const b = this.buf;
    while (this.pos < b.length) {
      const ch = b[this.pos]!;
      if (this.start < 0) {
        if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') {
          this.pos++;
          continue;
        }
        this.start = this.pos;
        if (ch === '{' || ch === '[') this.depth = 1;
        else if (ch === '"') this.inString = true;
        else {
          // A bare scalar (number, true, false, null) ends at whitespace or at the end of the stream.
          const m = /[\s{["]/.exec(b.slice(this.pos));
          if (!m) break;
          this.pos += m.index;
          out.push(b.slice(this.start, this.pos));
          this.start = -1;
          continue;
        }
        this.pos++;
        if (this.inString || this.depth > 0) continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.depth === 0) {
            this.pos++;
            out.push(b.slice(this.start, this.pos));
            this.start = -1;
            continue;
          }
        }
      } else if (ch === '"') this.inString = true;
      else if (ch === '{' || ch === '[') this.depth++;
      else if (ch === '}' || ch === ']') {
        this.depth--;
        if (this.depth === 0) {
          this.pos++;
          out.push(b.slice(this.start, this.pos));
          this.start = -1;
          continue;
        }
      }
      this.pos++;
    }
    if (final && this.start >= 0 && this.depth === 0 && !this.inString) {
      out.push(b.slice(this.start));
      this.start = -1;
      this.pos = b.length;
    }
    // Drop what has been handed out, so the buffer holds only the value in progress.
    const keep = this.start >= 0 ? this.start : this.pos;
    this.buf = b.slice(keep);
    this.pos -= keep;
    if (this.start >= 0) this.start = 0;
    return out;
  }
}

/** Not JSON where JSON was expected (`--jq` on `partner completion bash`, say). */
class NotJsonError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A stdout that parses what the command writes into JSON values and writes `transform(value)`
 * instead, in order. `compact` tells whether the value came as one line (NDJSON stays NDJSON).
 */
export class JsonStreamFilter implements OutStream {
  private readonly splitter = new JsonSplitter();
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly out: OutStream,
    private readonly transform: (value: unknown, compact: boolean) => Promise<string> | string,
    private readonly what: string,
  ) {}

  write(chunk: string): boolean {
    this.queue(this.splitter.push(String(chunk)));
    return true;
  }

  private queue(texts: string[]): void {
    for (const text of texts) {
      this.chain = this.chain.then(async () => {
        if (this.failure) return;
        try {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            throw new NotJsonError(`${this.what} needs JSON output, and this command printed other text`);
          }
          const s = await this.transform(value, !text.includes('\n'));
          if (s !== '') this.out.write(s);
        } catch (err) {
          this.failure = err;
        }
      });
    }
  }

  /** Waits for every value to be written; throws the first failure. */
  async finish(): Promise<void> {
    this.queue(this.splitter.end());
    await this.chain;
    if (this.failure) throw this.failure;
    if (this.splitter.rest() !== '')
      throw new NotJsonError(`${this.what} needs JSON output, and this command printed other text`);
  }
}
