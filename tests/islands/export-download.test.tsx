// The export page's body (docs/console-reports.md §2 Export page, §8): what each answer of POST
// /v1/transaction-groups/export-view shows — 200 the file and Download, 202 still preparing, 204 No
// Export Found., 412 Unauthorized, anything else Unknown Error. — and the alert beside each failure.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork } from './network.ts';

const UUID = '7b0c2a4e-1f3d-4c5b-9a8e-6d7f8091a2b3';
const VIEW = 'POST /v1/transaction-groups/export-view';
const READY = { fileName: 'Invoices-overview.csv', token: 'tok-1', state: 'ready', rows: 12, expiresAt: 1_900_000_000 };
const QUEUED = { fileName: 'Invoices-overview.csv', token: null, state: 'queued' };

/** The island for UUID with fresh stores, and the texts of the alerts it raised. */
async function renderExport() {
  vi.resetModules();
  const { default: ExportDownload } = await import('../../src/islands/ExportDownload.tsx');
  const { alerts } = await import('../../src/stores/alerts.ts');
  render(<ExportDownload uuid={UUID} />);
  return { alerts: () => alerts.get().map((a) => `${a.kind}: ${a.text}`) };
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Export download', () => {
  it('200: the file name and a Download link with the token; each download asks for a fresh token', async () => {
    let token = 0;
    const calls = stubNetwork({ [VIEW]: () => json({ ...READY, token: `tok-${++token}` }) });
    const page = await renderExport();
    expect(await screen.findByTestId('export-file-name')).toHaveProperty('textContent', READY.fileName);
    const link = screen.getByTestId('export-download');
    expect(link.getAttribute('href')).toBe(`/v1/transaction-groups/export-download/tok-1/${UUID}`);
    expect(calls).toEqual([{ method: 'POST', path: '/v1/transaction-groups/export-view', body: { uuid: UUID } }]);
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => {});
    await act(async () => link.click());
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(`/v1/transaction-groups/export-download/tok-2/${UUID}`));
    expect(page.alerts()).toEqual([]);
  });

  it('202: still being prepared, and Check again asks again', async () => {
    let answer: Response = json(QUEUED, 202);
    const calls = stubNetwork({ [VIEW]: () => answer });
    await renderExport();
    expect(await screen.findByTestId('export-preparing')).toBeTruthy();
    expect(screen.getByTestId('export-file-name').textContent).toBe(QUEUED.fileName);
    answer = json(READY);
    await act(async () => screen.getByTestId('export-check-again').click());
    expect(await screen.findByTestId('export-ready')).toBeTruthy();
    expect(calls).toHaveLength(2);
  });

  it('204: No Export Found. with its alert', async () => {
    stubNetwork({ [VIEW]: () => new Response(null, { status: 204 }) });
    const page = await renderExport();
    expect((await screen.findByTestId('export-state')).textContent).toBe('No Export Found.');
    expect(page.alerts()).toEqual(['danger: Export not found.']);
  });

  it('412: Unauthorized, the alert saying the server’s message', async () => {
    stubNetwork({
      [VIEW]: () =>
        json({ error: { code: 'precondition_failed', message: 'This export belongs to another user.' } }, 412),
    });
    const page = await renderExport();
    expect((await screen.findByTestId('export-state')).textContent).toBe('Unauthorized');
    expect(page.alerts()).toEqual(['danger: This export belongs to another user.']);
  });

  it('another refusal: Unknown Error., the alert saying the server’s message', async () => {
    stubNetwork({ [VIEW]: () => json({ error: { code: 'unprocessable', message: 'The export failed.' } }, 422) });
    const page = await renderExport();
    expect((await screen.findByTestId('export-state')).textContent).toBe('Unknown Error.');
    expect(page.alerts()).toEqual(['danger: The export failed.']);
  });

  it('no answer at all: Unknown Error. and Unknown error.', async () => {
    stubNetwork({ [VIEW]: () => Promise.reject(new TypeError('Failed to fetch')) });
    const page = await renderExport();
    expect((await screen.findByTestId('export-state')).textContent).toBe('Unknown Error.');
    expect(page.alerts()).toEqual(['danger: Unknown error.']);
  });
});
