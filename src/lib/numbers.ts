// The console's one way to write a count: digits grouped the US way ('12,345'), whatever the
// browser's locale, so the server and the browser render the same text (a mismatch is React error #418).

/** A count as '12,345'. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
