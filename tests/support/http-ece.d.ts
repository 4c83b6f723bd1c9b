// The part of http_ece (the RFC 8188 / RFC 8291 library web-push encrypts with) the test subscriber uses; it ships no types.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  export function decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer; dh?: Buffer; keyid?: string },
  ): Buffer;
}
