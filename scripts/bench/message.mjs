// The message bodies `npm run bench:send` sends: a deterministic HTML body of a given size.
export function htmlBody(bytes) {
  const head = '<!doctype html><html><body><h1>Your receipt</h1>';
  const tail = '</body></html>';
  const para = '<p>Thank you for your order. This paragraph is filler so the body reaches its benchmark size.</p>';
  let out = head;
  while (out.length + para.length + tail.length <= bytes) out += para;
  out += '<p>' + 'x'.repeat(Math.max(0, bytes - out.length - tail.length - 7)) + '</p>';
  return out + tail;
}
