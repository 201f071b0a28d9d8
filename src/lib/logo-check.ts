// The branding logo's rules (docs/console-reports.md §5), shared by the Branding modal (checked in the
// browser) and the server (checked again): the name must say png, jpg, jpeg or gif, the first bytes
// must be one of those images, and the size under 524288 bytes.
export const LOGO_TYPES = ['png', 'jpg', 'jpeg', 'gif'] as const;
export const LOGO_MAX_BYTES = 524_288;
export const LOGO_TOO_LARGE = 'File size exceeds the maximum file size';
export const typeNotAllowed = (type: string) => `File type '${type}' not allowed`;

const MAGIC: [string, number[]][] = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
];

/** The extension a name says, lower-cased ('' without one). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The image type the first bytes show, or a name for what they are instead (for the message). */
export function sniffImage(head: Uint8Array): { ok: true; mime: string } | { ok: false; type: string } {
  for (const [mime, magic] of MAGIC) if (magic.every((b, i) => head[i] === b)) return { ok: true, mime };
  const text = String.fromCharCode(...head.subarray(0, 256))
    .trimStart()
    .toLowerCase();
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return { ok: false, type: 'svg' };
  if (text.startsWith('<')) return { ok: false, type: 'html' };
  return { ok: false, type: 'unknown' };
}

/** The first rule a logo breaks, as the message to show, or null (browser side: name, size, bytes). */
export function logoProblem(name: string, size: number, head: Uint8Array): string | null {
  const ext = extensionOf(name);
  if (!(LOGO_TYPES as readonly string[]).includes(ext)) return typeNotAllowed(ext || 'unknown');
  if (size >= LOGO_MAX_BYTES) return LOGO_TOO_LARGE;
  if (size === 0) return 'The file is empty';
  const sniffed = sniffImage(head);
  return sniffed.ok ? null : typeNotAllowed(sniffed.type);
}
