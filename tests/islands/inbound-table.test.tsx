// The Inbound list (docs/console.md §2 "Inbound", §4, §9): rows newest first with From, To, Subject, the time
// in UTC and the verdict tag; the first page the server rendered shown with no load; a search sent 1000 ms
// after the last keystroke from page 1; 'No received mail found.' for a search with no match, and the text
// that says how to switch receiving on when nothing has been received at all.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork, until } from './network.ts';

const auth = (dmarc: string, flagged = false) => ({ spf: 'pass', dkim: 'pass', dmarc, flagged });
const row = (id: string, from: string, subject: string, at: string, a = auth('pass')) => ({
  id,
  from,
  to: ['Support <support@shop.example>'],
  received_for: ['support@shop.example'],
  subject,
  received_at: at,
  authentication: a,
  attachment_count: 0,
  in_reply_to_email_id: null,
});
const ROWS = [
  row(
    '7d0c4a9e-0000-4000-8000-000000000001',
    'Ann <ann@people.example>',
    'Where is my parcel?',
    '2026-11-24T02:30:05.000Z',
  ),
  row(
    '7d0c4a9e-0000-4000-8000-000000000002',
    'ceo@bank.example',
    'Wire it',
    '2026-11-22T08:00:00.000Z',
    auth('fail', true),
  ),
  row('7d0c4a9e-0000-4000-8000-000000000003', 'bob@x.example', 'Hello', '2026-11-21T08:00:00.000Z', {
    ...auth('none'),
    spf: 'softfail',
    dkim: 'none',
  }),
];
const meta = (total: number, page = 1) => ({
  current_page: page,
  per_page: 10,
  total,
  last_page: Math.max(1, Math.ceil(total / 10)),
  total_capped: false,
});
const FIRST = { data: ROWS, meta: meta(3) };
const DOMAINS = [{ id: 4, name: 'shop.example' }];

async function renderTable(first: typeof FIRST | null) {
  vi.resetModules();
  const { default: InboundTable } = await import('../../src/islands/InboundTable.tsx');
  const { default: InboundSearch } = await import('../../src/islands/InboundSearch.tsx');
  render(
    <>
      <InboundSearch />
      <InboundTable first={first} domains={DOMAINS} />
    </>,
  );
}

const cells = (testId: string) => [...document.querySelectorAll(`[data-testid=${testId}]`)].map((c) => c.textContent);

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Inbound table', () => {
  it('shows the server’s first page without loading it: From, To, Subject, UTC time, verdict', async () => {
    const calls = stubNetwork({});
    await renderTable(FIRST);
    expect(cells('inbound-subject')).toEqual(['Where is my parcel?', 'Wire it', 'Hello']);
    expect(cells('inbound-from')).toEqual(['Annann@people.example', 'ceo@bank.example', 'bob@x.example']);
    expect(cells('inbound-to')).toEqual(['support@shop.example', 'support@shop.example', 'support@shop.example']);
    expect(cells('inbound-verdict')).toEqual(['Passed', 'Flagged', 'Failed']);
    // UTC, though the browser is in New York (where it is still November 23)
    expect(cells('inbound-date')[0]).toBe('November 24, 2026');
    expect(screen.getByRole('link', { name: 'Where is my parcel?' }).getAttribute('href')).toBe(
      `/inbound/${ROWS[0].id}`,
    );
    expect(calls).toEqual([]);
  });

  it('searches 1000 ms after the last keystroke, from page 1, and says when nothing matches', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const calls = stubNetwork({ 'POST /v1/inbound/search': () => json({ data: [], meta: meta(0) }) });
    await renderTable(FIRST);
    const box = screen.getByRole<HTMLInputElement>('searchbox', { name: 'Search by From, To or Subject' });
    const { fireEvent } = await import('@testing-library/react');
    fireEvent.change(box, { target: { value: 'parc' } });
    await act(async () => vi.advanceTimersByTime(999));
    expect(calls).toEqual([]);
    await act(async () => vi.advanceTimersByTime(1));
    await until(() => document.querySelector('[data-testid=inbound-empty]'));
    expect(calls.map((c) => c.body)).toEqual([{ page: 1, search: 'parc' }]);
    expect(screen.getByTestId('inbound-empty').textContent).toContain('No received mail found.');
  });

  it('says how to switch receiving on when nothing has been received, naming the domains', async () => {
    stubNetwork({});
    await renderTable({ data: [], meta: meta(0) });
    expect(screen.getByTestId('inbound-nothing').textContent).toContain('No mail has been received yet.');
    expect(screen.getByRole('link', { name: 'shop.example' }).getAttribute('href')).toBe('/domains/4');
  });
});
