import { describe, expect, it } from 'vitest';
import { formatFileSize } from '../../src/lib/file-size.ts';
import { sanitizeFileName } from '../../src/server/attachments/file-names.ts';

describe('formatFileSize (docs/console-reports.md §9: Bytes/KB/MB/GB/TB, base 1024)', () => {
  it('shows each unit', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(1)).toBe('1 Bytes');
    expect(formatFileSize(1023)).toBe('1023 Bytes');
    expect(formatFileSize(1024)).toBe('1 KB');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(1024 ** 2 * 100)).toBe('100 MB');
    expect(formatFileSize(1024 ** 3 * 1.25)).toBe('1.25 GB');
    expect(formatFileSize(1024 ** 4 * 3)).toBe('3 TB');
    expect(formatFileSize(1024 ** 5)).toBe('1024 TB');
  });
});

describe('sanitizeFileName', () => {
  it('keeps the last path segment, drops control characters, caps at 255 bytes', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(sanitizeFileName('a\u0000b\r\n.txt')).toBe('ab.txt');
    expect(sanitizeFileName('..')).toBe('file');
    expect(sanitizeFileName('')).toBe('file');
    expect(new TextEncoder().encode(sanitizeFileName('x'.repeat(300))).length).toBe(255);
    const euro = sanitizeFileName('€'.repeat(100)); // 3 bytes each: 85 fit
    expect(euro).toBe('€'.repeat(85));
  });
});

describe('logoProblem (docs/console-reports.md §5, checked in the browser and on the server)', async () => {
  const { logoProblem } = await import('../../src/lib/logo-check.ts');
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
  it('goes by name, size and bytes', () => {
    expect(logoProblem('logo.png', 100, png)).toBeNull();
    expect(logoProblem('logo.svg', 100, png)).toBe("File type 'svg' not allowed");
    expect(logoProblem('logo.png', 524_288, png)).toBe('File size exceeds the maximum file size');
    expect(logoProblem('logo.png', 100, new TextEncoder().encode('<svg xmlns="x">'))).toBe(
      "File type 'svg' not allowed",
    );
    expect(logoProblem('logo.jpeg', 100, new TextEncoder().encode('<html>'))).toBe("File type 'html' not allowed");
    expect(logoProblem('logo', 100, png)).toBe("File type 'unknown' not allowed");
  });
});
