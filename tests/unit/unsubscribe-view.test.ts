import { describe, expect, it } from 'vitest';
import { safeRedirect } from '../../src/lib/unsubscribe-view.ts';

describe('safeRedirect', () => {
  it.each([
    [null, null],
    ['', null],
    ['/login', 'https://mail.example.com/login'],
    ['https://shop.example/bye', 'https://shop.example/bye'],
    ['javascript:alert(1)', null],
    ['data:text/html,<script>1</script>', null],
  ])('%s → %s', (url, expected) => {
    expect(safeRedirect(url, 'https://mail.example.com/unsubscribe/x')).toBe(expected);
  });
});
