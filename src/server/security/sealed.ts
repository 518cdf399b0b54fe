import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Webhook signing keys must be usable (HMAC needs the key itself), so they cannot be hashed like
 * credential secrets. They are sealed with AES-256-GCM under a key kept beside the database in a
 * file of mode 0600, so a copied database alone does not reveal them.
 */
export class Sealer {
  constructor(private readonly key: Buffer) {}

  static fromFile(file: string): Sealer {
    if (!existsSync(file)) {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
    return new Sealer(key);
  }

  /**
   * A key for another purpose derived from this one (HKDF-SHA-256, `purpose` as its info), so one
   * key file or one shared setting serves both and every instance given the seal key agrees.
   */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), purpose, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), body.toString('base64')].join(
      '.',
    );
  }

  open(sealed: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('utf8');
  }
}
