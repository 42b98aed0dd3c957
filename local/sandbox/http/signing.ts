/**
 * Signed URLs (sheet upload, verdict download): path + expiry, HMAC-SHA256 with a secret
 * drawn for this process, so no URL outlives the server that issued it and none can be
 * forged or stretched. Expiry is read on the sandbox clock.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type UrlSigner = {
  /** `path?expires=…&signature=…` */
  sign(path: string, expiresAt: number): string;
  verify(path: string, query: URLSearchParams, now: number): 'valid' | 'expired' | 'invalid';
};

export const createUrlSigner = (secret: Buffer = randomBytes(32)): UrlSigner => {
  const mac = (path: string, expiresAt: number): string =>
    createHmac('sha256', secret).update(`${path}\n${expiresAt}`).digest('base64url');
  return {
    sign: (path, expiresAt) => `${path}?expires=${expiresAt}&signature=${mac(path, expiresAt)}`,
    verify(path, query, now) {
      const expires = query.get('expires') ?? '';
      const signature = query.get('signature') ?? '';
      if (!/^\d{1,16}$/.test(expires)) return 'invalid';
      const expected = Buffer.from(mac(path, Number(expires)));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      return Number(expires) <= now ? 'expired' : 'valid';
    },
  };
};
