// The Online Attachments list island: it shows the first page the server rendered (its
// first row selected, the branding it was given) without asking for it again, says what a link
// that cannot be used any more is ('Download limit reached', 'Expired on …', downloads left), and
// previews such a link as its recipients see it; a search then goes through the API.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork } from './network.ts';

const BASE = '/v1/tracked-attachments';

function link(
  id: number,
  name: string,
  extra: { expiry?: number | null; limit?: number; downloads?: number; state?: 'live' | 'expired' | 'exhausted' } = {},
) {
  return {
    id,
    name,
    created_timestamp: 1_795_000_000,
    preview_link: `http://console.test/a/p${id}`,
    integration_id: `oa_${id}`,
    options: { expiry_timestamp: extra.expiry ?? null, access_limit: extra.limit ?? 0 },
    downloads: extra.downloads ?? 0,
    state: extra.state ?? 'live',
    asset_count: 1,
    assets: [{ id: id * 10, name: `${name}.pdf`, size: 2048, content_type: 'application/pdf' }],
  };
}

const BRANDING = {
  page: { colour: '#1e3a5f', text_colour: '#ffffff' },
  button: { colour: '#ffd166', text_colour: '#000000' },
  link: { colour: '#ffffff', text_colour: '#333333' },
  logo: null,
};
const FIRST = {
  list: {
    data: [
      link(3, 'Used up', { limit: 2, downloads: 2, state: 'exhausted' }),
      link(2, 'Last year', { expiry: Date.UTC(2026, 2, 3, 12) / 1000, state: 'expired' }),
      link(1, 'Fresh', { limit: 5, downloads: 1 }),
    ],
    pagination: { page: 1, pages: 1, total: 3 },
  },
  branding: BRANDING,
};

const column = (testId: string) => screen.getAllByTestId(testId).map((c) => c.textContent);

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

async function renderList() {
  vi.resetModules();
  const { default: AttachmentList } = await import('../../src/islands/AttachmentList.tsx');
  render(<AttachmentList initial={FIRST} />);
}

describe('Online Attachments list island', () => {
  it(
    "shows the server's first page with each link's state, " + 'and previews a used-up link as recipients see it',
    async () => {
      const calls = stubNetwork({ [`GET ${BASE}/branding`]: () => json(BRANDING) });
      await renderList();
      expect(column('attachment-name')).toEqual(['Used up', 'Last year', 'Fresh']);
      expect(column('attachment-downloads')).toEqual(['0 of 2 left', 'No limit', '4 of 5 left']);
      expect(column('attachment-expires')).toEqual(['Never', 'Expired on 3 March 2026', 'Never']);
      expect(column('attachment-state')).toEqual(['Download limit reached', 'Expired on 3 March 2026']);
      // the first row is selected and previewed: the notice instead of Download buttons
      expect(screen.getAllByTestId('attachment-row')[0].className).toBe('is-selected');
      expect(screen.getByTestId('pane-state').textContent).toBe('Download limit reached · 0 of 2 left');
      expect(screen.getByTestId('preview-title').textContent).toBe('Download limit reached');
      expect(screen.queryByText('Download')).toBeNull();
      await act(() => new Promise<void>((resolve) => setImmediate(resolve)));
      expect(calls.map((c) => c.path)).toEqual([`${BASE}/branding`]); // the list itself is not asked for again

      await act(async () => screen.getAllByTestId('attachment-row')[2].click());
      expect(screen.getByTestId('pane-state').textContent).toBe('Live · 4 of 5 left');
      expect(screen.getByTestId('preview-title').textContent).toBe('Online Attachments');
      expect(screen.getByText('Download')).toBeTruthy();
    },
  );

  it('searches through the API', async () => {
    const calls = stubNetwork({
      [`GET ${BASE}/branding`]: () => json(BRANDING),
      [`GET ${BASE}/groups`]: () => json({ data: [link(1, 'Fresh')], pagination: { page: 1, pages: 1, total: 1 } }),
    });
    await renderList();
    await act(async () => void fireEvent.change(screen.getByTestId('attachment-search'), { target: { value: 'fre' } }));
    await vi.waitFor(() => expect(column('attachment-name')).toEqual(['Fresh']), { timeout: 3_000 });
    expect(calls.filter((c) => c.path === `${BASE}/groups`)).toHaveLength(1);
  });
});
