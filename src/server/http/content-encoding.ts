import { Transform, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ApiError } from '../errors.js';

// Request bodies may be compressed with gzip, deflate or br. The body limit applies to the
// decoded bytes: decoding stops (and the decoder is destroyed) at the first byte past it, so a
// small zip bomb costs at most the limit in memory and the time to inflate it.

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

export function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** The stream to read the body from: the request itself, or its decoder's output. */
export function decodedBody(encoding: string | undefined, payload: Readable, limit: number): Readable {
  const enc = encoding?.trim().toLowerCase() ?? '';
  if (enc === '' || enc === 'identity') return payload;
  const make = DECODERS[enc];
  if (!make) {
    throw new ApiError(
      'request_unsupported_media_type',
      `Content-Encoding "${encoding}" is not supported; send the body as identity, gzip, deflate or br`,
    );
  }
  const decoder = make();
  let decoded = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      decoded += chunk.length;
      if (decoded > limit) {
        payload.unpipe(decoder);
        decoder.destroy();
        cb(new ApiError('request_too_large', `the decoded request body is larger than ${limit} bytes`));
        return;
      }
      cb(null, chunk);
    },
  });
  decoder.on('error', (err) =>
    out.destroy(
      new ApiError('request_invalid', `the body is not valid ${enc} data (${err.message})`, [
        { path: ['body'], message: `not valid ${enc}` },
      ]),
    ),
  );
  payload.pipe(decoder).pipe(out);
  return out;
}
