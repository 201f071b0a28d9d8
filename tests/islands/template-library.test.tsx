// The Templates list island: the server renders its first page; the island hydrates onto
// that HTML without a mismatch (React #418), takes the page over without asking for it again, and
// then pages and sorts through POST /v1/templates/search. The network is stubbed at fetch.
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TemplateWire } from '../../src/lib/template-editor.ts';
import { json, stubNetwork } from './network.ts';

const template = (i: number): TemplateWire => ({
  id: `3f0c1d2e-1111-4222-8333-4444556666${String(i).padStart(2, '0')}`,
  type: 'user',
  name: `Template ${i}`,
  status: i % 2 ? 'published' : 'draft',
  alias: null,
  from_name: null,
  from_email: null,
  reply_email: null,
  subject: `Subject ${i}`,
  description: `d${i}`,
  content_html: `<p>Hi ${i}</p>`,
  content_text: null,
  created_timestamp: '2026-11-23T10:00:00Z',
  updated_timestamp: '2026-11-23T10:00:00Z',
  published_timestamp: i % 2 ? '2026-11-23T10:00:00Z' : null,
  unpublished_changes: false,
});
const FIRST = { data: [3, 2, 1].map(template), meta: { current_page: 1, per_page: 10, total: 3, last_page: 1 } };

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  document.body.innerHTML = '';
});

describe('Templates list: the first page from the server', () => {
  it('hydrates onto the server HTML without a mismatch and asks for no page until the query changes', async () => {
    const calls = stubNetwork({
      'POST /v1/templates/render': () => json({ html: '<p>Hi</p>', subject: 'Subject', variables: [] }),
      'POST /v1/templates/search': () => json({ data: [1, 2, 3].map(template), meta: FIRST.meta }),
    });
    vi.resetModules();
    const { default: TemplateLibrary } = await import('../../src/islands/TemplateLibrary.tsx');
    const container = document.createElement('div');
    container.innerHTML = renderToString(<TemplateLibrary initial={FIRST} />);
    document.body.append(container);
    const names = () => screen.getAllByTestId('template-name').map((b) => b.textContent);
    // what a browser without script shows
    expect(names()).toEqual(['Template 3', 'Template 2', 'Template 1']);

    const mismatches: unknown[] = [];
    await act(
      async () =>
        void hydrateRoot(container, <TemplateLibrary initial={FIRST} />, {
          onRecoverableError: (err) => mismatches.push(err),
        }),
    );
    expect(mismatches).toEqual([]);
    expect(names()).toEqual(['Template 3', 'Template 2', 'Template 1']);
    await vi.waitFor(() => expect(screen.queryByTestId('template-preview')).not.toBeNull());
    expect(calls.filter((c) => c.path === '/v1/templates/search')).toEqual([]);

    await act(async () => void fireEvent.click(screen.getByRole('button', { name: /Name/ })));
    await vi.waitFor(() => expect(names()).toEqual(['Template 1', 'Template 2', 'Template 3']));
    expect(calls.find((c) => c.path === '/v1/templates/search')?.body).toEqual({
      template_name: '',
      sort: 'name',
      page: 1,
    });
  }, 30_000);

  it("an empty first page is 'No templates found' on the server and after hydration", async () => {
    stubNetwork({});
    vi.resetModules();
    const { default: TemplateLibrary } = await import('../../src/islands/TemplateLibrary.tsx');
    const empty = { data: [] as TemplateWire[], meta: { current_page: 1, per_page: 10, total: 0, last_page: 1 } };
    const container = document.createElement('div');
    container.innerHTML = renderToString(<TemplateLibrary initial={empty} />);
    document.body.append(container);
    expect(screen.getByTestId('template-empty').textContent).toBe('No templates found');
    const mismatches: unknown[] = [];
    await act(
      async () =>
        void hydrateRoot(container, <TemplateLibrary initial={empty} />, {
          onRecoverableError: (err) => mismatches.push(err),
        }),
    );
    expect(mismatches).toEqual([]);
    expect(screen.getByTestId('template-empty').textContent).toBe('No templates found');
  }, 30_000);
});
