// The template editor island (spec part two §4 "Reply-to" and "Editor request status", §8): editing
// the from address carries reply-to along unless 'Use different reply to Email' is ticked;
// unticking copies from into reply-to; the box starts ticked when they differ. Save goes idle →
// pending → resolved ('Save complete') or rejected (the server's message, else 'Error in saving
// template'). The network is stubbed at fetch (tests/islands/network.ts).
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, later, type Route, stubNetwork } from './network.ts';

const ID = '3f0c1d2e-1111-4222-8333-444455556666';

function wire(over: Record<string, unknown> = {}) {
  return {
    id: ID,
    type: 'user',
    name: 'Receipt',
    status: 'draft',
    from_name: 'Shop',
    from_email: 'hello@shop.example',
    reply_email: 'hello@shop.example',
    subject: 'Your receipt',
    description: '',
    content_html: '<p>Hi</p>',
    content_text: '',
    created_timestamp: '2026-11-23T10:00:00Z',
    updated_timestamp: '2026-11-23T10:00:00Z',
    published_timestamp: null,
    ...over,
  };
}

const DOMAINS = { domains: [{ domain_domain: 'shop.example', domain_sending_verified: 'yes' }] };

function network(template: Record<string, unknown>, put?: Route) {
  return stubNetwork({
    [`GET /v1/templates/${ID}`]: () => json({ template }),
    'GET /v1/domains': () => json(DOMAINS),
    'POST /v1/templates/render': () => json({ html: '<p>Hi</p>', subject: 'Your receipt', variables: [] }),
    ...(put ? { [`PUT /v1/templates/${ID}`]: put } : {}),
  });
}

/** The editor for /templates/edit/{ID}, loaded; and the alerts store of the same module graph. */
async function openEditor() {
  vi.resetModules();
  const { default: TemplateEditor } = await import('../../src/islands/TemplateEditor.tsx');
  const { alerts } = await import('../../src/islands/stores/alerts.ts');
  render(<TemplateEditor mode="edit" hash={ID} />);
  await screen.findByTestId('template-editor');
  return { alerts: () => alerts.get().map((a) => a.text) };
}

const fromLocal = () => screen.getByTestId<HTMLInputElement>('from-local');
const replyTo = () => screen.getByTestId<HTMLInputElement>('field-reply-email');
const box = () => screen.getByRole<HTMLInputElement>('checkbox', { name: 'Use different reply to Email' });
const editor = () => screen.getByTestId('template-editor');
const type = (field: HTMLInputElement, text: string) => act(async () => void fireEvent.change(field, { target: { value: text } }));
const click = (el: HTMLElement) => act(async () => void fireEvent.click(el));

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => cleanup());

describe('Template editor: reply-to (spec §4)', () => {
  it('starts unticked when reply-to equals from, and editing from carries reply-to along', async () => {
    network(wire());
    await openEditor();
    expect(box().checked).toBe(false);
    expect(replyTo().readOnly).toBe(true);
    await type(fromLocal(), 'orders');
    expect(replyTo().value).toBe('orders@shop.example');
  });

  it('ticked: editing from leaves reply-to alone; unticking copies from into reply-to', async () => {
    network(wire());
    await openEditor();
    await click(box());
    expect(box().checked).toBe(true);
    await type(replyTo(), 'help@shop.example');
    await type(fromLocal(), 'team');
    expect(replyTo().value).toBe('help@shop.example');
    await click(box());
    expect(box().checked).toBe(false);
    expect(replyTo().value).toBe('team@shop.example');
  });

  it('starts ticked when the loaded template has a different reply-to', async () => {
    network(wire({ reply_email: 'support@shop.example' }));
    await openEditor();
    expect(box().checked).toBe(true);
    expect(replyTo().value).toBe('support@shop.example');
    await type(fromLocal(), 'news');
    expect(replyTo().value).toBe('support@shop.example');
  });
});

describe('Template editor: request states (spec §4 "Editor request status", §8)', () => {
  it('idle → pending (Save disabled) → resolved with Save complete; the status is kept', async () => {
    const answer = later();
    const calls = network(wire(), () => answer.promise);
    const { alerts } = await openEditor();
    expect(editor().dataset.requestStatus).toBe('idle');
    await click(screen.getByTestId('save'));
    expect(editor().dataset.requestStatus).toBe('pending');
    expect(screen.getByTestId<HTMLButtonElement>('save').disabled).toBe(true);
    expect(screen.getByTestId<HTMLButtonElement>('publish').disabled).toBe(true);
    const put = calls.find((c) => c.method === 'PUT');
    expect((put?.body as { status?: string }).status).toBe('draft');
    await act(async () => answer.resolve(json({ template: wire({ name: 'Receipt' }), message: 'Save complete' })));
    await vi.waitFor(() => expect(editor().dataset.requestStatus).toBe('resolved'));
    expect(alerts()).toContain('Save complete');
    expect(screen.getByTestId<HTMLButtonElement>('save').disabled).toBe(false);
  });

  it("rejected with the server's message", async () => {
    network(wire(), () => json({ error: { code: 'validation_failed', message: 'reply_email: must be an email address' } }, 400));
    const { alerts } = await openEditor();
    await click(screen.getByTestId('save'));
    await vi.waitFor(() => expect(editor().dataset.requestStatus).toBe('rejected'));
    expect(alerts()).toContain('reply_email: must be an email address');
  });

  it("rejected with 'Error in saving template' when the server gives no message", async () => {
    network(wire(), () => new Response('bad gateway', { status: 502 }));
    const { alerts } = await openEditor();
    await click(screen.getByTestId('save'));
    await vi.waitFor(() => expect(editor().dataset.requestStatus).toBe('rejected'));
    expect(alerts()).toContain('Error in saving template');
  });
});
