// Reports mangled as the wire may bring them, for the receiver's property tests (fast-check): cut
// short, a huge header added in front, random bytes spliced in.
import fc from 'fast-check';

/** Each generated message's bytes mangled; `to` (where it is sent) is kept. */
export function mangled(messages: fc.Arbitrary<{ to: string; raw: string }>, encoding: BufferEncoding) {
  return fc
    .tuple(
      messages,
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.constantFrom(0, 10_000, 1_100_000),
      fc.uint8Array({ maxLength: 200 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
    )
    .map(([{ to, raw }, cut, huge, bytes, at]) => {
      const kept = Buffer.from(raw.slice(0, Math.max(1, Math.floor(raw.length * cut))), encoding);
      const splice = Math.floor(kept.length * at);
      return {
        to,
        raw: Buffer.concat([
          Buffer.from(huge > 0 ? `X-Huge: ${'h'.repeat(huge)}\r\n` : ''),
          kept.subarray(0, splice),
          Buffer.from(bytes),
          kept.subarray(splice),
        ]),
      };
    });
}
