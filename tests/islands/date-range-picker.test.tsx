// The date range of the Dashboard and the Recipients tab (docs/console.md §2, §9): by default the last 29
// days through today, in UTC days as the API counts them, written 'MMMM D, YYYY - MMMM D, YYYY';
// while hydrating it shows the server's range (React #418), then the browser's; the calendar opens
// with the range selected. The tests run in America/New_York (vitest.config.ts).
import { act, cleanup, render, screen } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';

async function freshIsland() {
  vi.resetModules();
  return (await import('../../src/islands/TransactionsDateRange.tsx')).default;
}

const field = () => screen.getByRole<HTMLInputElement>('textbox', { name: 'Date range' });

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  document.body.innerHTML = '';
});

describe('Date range picker', () => {
  it('shows the last 29 days through today', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-30T12:00:00Z'));
    const TransactionsDateRange = await freshIsland();
    render(<TransactionsDateRange today="2026-03-30" />);
    expect(field().value).toBe('March 1, 2026 - March 30, 2026');
    const { currentRange } = await import('../../src/stores/date-range.ts');
    expect(currentRange()).toEqual({ start: '2026-03-01', end: '2026-03-30' });
  });

  it('counts UTC days: late evening in New York is already tomorrow', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-31T02:00:00Z')); // 22:00 on March 30 in New York
    const TransactionsDateRange = await freshIsland();
    render(<TransactionsDateRange today="2026-03-31" />);
    expect(field().value).toBe('March 2, 2026 - March 31, 2026');
  });

  it("hydrates the server's range without a mismatch, then shows the browser's day", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const TransactionsDateRange = await freshIsland();
    // the server renders a second before midnight UTC, the browser hydrates two seconds later
    vi.setSystemTime(new Date('2026-03-30T23:59:59Z'));
    const container = document.createElement('div');
    container.innerHTML = renderToString(<TransactionsDateRange today="2026-03-30" />);
    document.body.append(container);
    vi.setSystemTime(new Date('2026-03-31T00:00:01Z'));
    // React reports a text mismatch as a recoverable error, an attribute mismatch (an input's value) on the console
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const recoverable: unknown[] = [];
    await act(async () => {
      render(<TransactionsDateRange today="2026-03-30" />, {
        container,
        hydrate: true,
        onRecoverableError: (error) => recoverable.push(error),
      });
    });
    expect(recoverable).toEqual([]);
    expect(logged.mock.calls).toEqual([]);
    logged.mockRestore();
    expect(field().value).toBe('March 2, 2026 - March 31, 2026');
  });

  it('opens the calendar with the default range selected', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-30T12:00:00Z'));
    const TransactionsDateRange = await freshIsland();
    render(<TransactionsDateRange today="2026-03-30" />);
    await act(async () => field().click());
    await vi.waitFor(() => expect(document.querySelector('.flatpickr-calendar.open')).not.toBeNull(), {
      timeout: 5000,
    });
    const label = (selector: string) =>
      document
        .querySelector(`.flatpickr-calendar .flatpickr-day.${selector}:not(.prevMonthDay):not(.nextMonthDay)`)
        ?.getAttribute('aria-label');
    expect([label('startRange'), label('endRange')]).toEqual(['March 1, 2026', 'March 30, 2026']);
    // flatpickr works on an input of its own: the field React renders is untouched
    expect(field().className).toBe('input');
  });
});
