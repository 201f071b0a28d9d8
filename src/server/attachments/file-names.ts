// Names of uploaded files: sanitised, never refused — the last path segment only,
// control characters removed, at most 255 bytes of UTF-8 (cut on a character boundary).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const MAX_BYTES = 255;

export function sanitizeFileName(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? '';
  let clean = last.replace(CONTROL, '').trim();
  if (clean === '.' || clean === '..') clean = '';
  if (clean === '') return 'file';
  const encoder = new TextEncoder();
  if (encoder.encode(clean).length <= MAX_BYTES) return clean;
  let out = '';
  let bytes = 0;
  for (const ch of clean) {
    const size = encoder.encode(ch).length;
    if (bytes + size > MAX_BYTES) break;
    out += ch;
    bytes += size;
  }
  return out;
}
