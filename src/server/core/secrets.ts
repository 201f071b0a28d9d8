// Secrets at rest (docs/architecture.md §8): API keys, SMTP passwords and DKIM private keys are encrypted with
// AES-256-GCM under a key derived from TRANSACT_SECRET, because the console must show credentials
// again; lookups go through an HMAC digest, so finding a key never needs decrypting every row.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export interface Secrets {
  /** "v1.<iv>.<tag>.<ciphertext>", base64url parts. */
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
  /** Hex HMAC-SHA256 of a value, for indexed lookup of secrets. */
  digest(value: string): string;
}

export function createSecrets(masterSecret: string): Secrets {
  const encKey = Buffer.from(hkdfSync('sha256', masterSecret, 'transact', 'secrets-at-rest/aes-256-gcm', 32));
  const macKey = Buffer.from(hkdfSync('sha256', masterSecret, 'transact', 'secrets-at-rest/lookup-hmac', 32));
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    digest(value) {
      return createHmac('sha256', macKey).update(value).digest('hex');
    },
  };
}
