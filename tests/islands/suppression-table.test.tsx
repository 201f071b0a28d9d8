// The Suppression List table (docs/console-reports.md §2, §4): delete acts on exactly one checked row; while a
// row is checked the other rows' checkboxes are disabled, and the delete control is disabled when
// none is checked. Dates read 'D MMM YYYY - HH:mm' in UTC whatever the browser's zone.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork } from './network.ts';

const ROWS = [
  { email: 'ann@people.example', origin: 'bounce', suppressed_timestamp: '2026-11-23T13:30:05.000Z' },
  { email: 'bob@people.example', origin: 'unsubscribe', suppressed_timestamp: '2026-11-22T23:59:00.000Z' },
  { email: 'cy@people.example', origin: 'user', suppressed_timestamp: '2026-03-01T00:00:00.000Z' },
];
const PAGE = { data: ROWS, meta: { current_page: 1, per_page: 10, total: 3, last_page: 1 } };

const box = (email: string) => screen.getByRole<HTMLInputElement>('checkbox', { name: `Select ${email}` });
const deleteButton = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Delete the checked address' });

async function renderTable() {
  vi.resetModules();
  const { default: SuppressionTable } = await import('../../src/islands/SuppressionTable.tsx');
  render(<SuppressionTable />);
  await screen.findByText('ann@people.example');
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(cleanup);

describe('Suppression table', () => {
  it('enables delete for exactly one checked row and disables the other rows meanwhile', async () => {
    stubNetwork({ 'POST /v1/suppression/search': () => json(PAGE) });
    await renderTable();
    expect(deleteButton().disabled).toBe(true);
    expect(ROWS.map((r) => box(r.email).disabled)).toEqual([false, false, false]);

    await act(async () => box('bob@people.example').click());
    expect(box('bob@people.example').checked).toBe(true);
    expect(ROWS.map((r) => box(r.email).disabled)).toEqual([true, false, true]);
    expect(deleteButton().disabled).toBe(false);
    // a disabled row cannot be checked as well
    await act(async () => box('ann@people.example').click());
    expect(ROWS.map((r) => box(r.email).checked)).toEqual([false, true, false]);

    await act(async () => box('bob@people.example').click());
    expect(ROWS.map((r) => box(r.email).disabled)).toEqual([false, false, false]);
    expect(deleteButton().disabled).toBe(true);
  });

  it('deletes the one checked address', async () => {
    const calls = stubNetwork({
      'POST /v1/suppression/search': () => json(PAGE),
      'DELETE /v1/suppression/cy%40people.example': () => json({ message: 'deleted' }),
    });
    await renderTable();
    await act(async () => box('cy@people.example').click());
    await act(async () => deleteButton().click());
    // it asks first: nothing is deleted until Delete is confirmed
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await act(async () => screen.getByTestId('delete-suppression-confirm').click());
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([
      '/v1/suppression/cy%40people.example',
    ]);
  });

  it('writes each date in UTC as D MMM YYYY - HH:mm', async () => {
    stubNetwork({ 'POST /v1/suppression/search': () => json(PAGE) });
    await renderTable();
    const times = [...document.querySelectorAll('time')].map((t) => [t.getAttribute('datetime'), t.textContent]);
    expect(times).toEqual([
      ['2026-11-23T13:30:05.000Z', '23 Nov 2026 - 13:30'],
      ['2026-11-22T23:59:00.000Z', '22 Nov 2026 - 23:59'],
      ['2026-03-01T00:00:00.000Z', '1 Mar 2026 - 00:00'],
    ]);
  });

  it(
    'starts from the first page the server rendered (issue ' + '19): no load on mount, the next page loaded on demand',
    async () => {
      const many = { data: ROWS, meta: { current_page: 1, per_page: 3, total: 6, last_page: 2 } };
      const second = {
        data: [{ email: 'dee@people.example', origin: 'user', suppressed_timestamp: '2026-03-02T00:00:00.000Z' }],
        meta: { current_page: 2, per_page: 3, total: 6, last_page: 2 },
      };
      const calls = stubNetwork({
        'POST /v1/suppression/search': (call) => json((call.body as { page: number }).page === 2 ? second : many),
      });
      vi.resetModules();
      const { default: SuppressionTable } = await import('../../src/islands/SuppressionTable.tsx');
      render(<SuppressionTable first={many as never} />);
      expect(screen.getByText('ann@people.example')).toBeTruthy();
      await act(async () => {});
      expect(calls).toEqual([]);
      await act(async () => screen.getByRole('button', { name: 'Next' }).click());
      await screen.findByText('dee@people.example');
      expect(calls.map((c) => c.body)).toEqual([{ page: 2, email: '', suppressed_origin: 'all' }]);
    },
  );
});
