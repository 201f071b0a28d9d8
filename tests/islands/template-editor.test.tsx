// The template editor island (docs/console-reports.md §4 "Reply-to" and "Editor request status", §8): editing
// the from address carries reply-to along unless 'Use different reply to Email' is ticked;
// unticking copies from into reply-to; the box starts ticked when they differ. Save goes idle →
// pending → resolved ('Save complete') or rejected (the server's message, else 'Error in saving
// template'). Publish names each missing field at the field, before any call and from the
// server's 422 details; a compile error is shown beside the editor with its line; the HTML is a
// plain textarea until CodeMirror arrives, which takes over its text. The network is stubbed at
// fetch (tests/islands/network.ts).
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

function network(
  template: Record<string, unknown>,
  put?: Route,
  render: Route = () => json({ html: '<p>Hi</p>', subject: 'Your receipt', variables: [] }),
) {
  return stubNetwork({
    [`GET /v1/templates/${ID}`]: () => json({ template }),
    'GET /v1/domains': () => json(DOMAINS),
    'POST /v1/templates/render': render,
    ...(put ? { [`PUT /v1/templates/${ID}`]: put } : {}),
  });
}

/** The editor for /templates/edit/{ID}, loaded; and the alerts store of the same module graph. */
async function openEditor() {
  vi.resetModules();
  const { default: TemplateEditor } = await import('../../src/islands/TemplateEditor.tsx');
  const { alerts } = await import('../../src/stores/alerts.ts');
  const store = await import('../../src/stores/template-editor.ts');
  render(<TemplateEditor mode="edit" hash={ID} />);
  await screen.findByTestId('template-editor');
  return { alerts: () => alerts.get().map((a) => a.text), store };
}

const fromLocal = () => screen.getByTestId<HTMLInputElement>('from-local');
const replyTo = () => screen.getByTestId<HTMLInputElement>('field-reply-email');
const box = () => screen.getByRole<HTMLInputElement>('checkbox', { name: 'Use different reply to Email' });
const editor = () => screen.getByTestId('template-editor');
const type = (field: HTMLInputElement, text: string) =>
  act(async () => void fireEvent.change(field, { target: { value: text } }));
const click = (el: HTMLElement) => act(async () => void fireEvent.click(el));

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => cleanup());

describe('Template editor: reply-to (docs/console-reports.md §4)', () => {
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

describe('Template editor: request states (docs/console-reports.md §4 "Editor request status", §8)', () => {
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
    expect((put?.body as { status?: string } | undefined)?.status).toBe('draft');
    await act(async () => answer.resolve(json({ template: wire({ name: 'Receipt' }), message: 'Save complete' })));
    await vi.waitFor(() => expect(editor().dataset.requestStatus).toBe('resolved'));
    expect(alerts()).toContain('Save complete');
    expect(screen.getByTestId<HTMLButtonElement>('save').disabled).toBe(false);
  });

  it("rejected with the server's message", async () => {
    network(wire(), () =>
      json({ error: { code: 'validation_failed', message: 'reply_email: must be an email address' } }, 400),
    );
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

describe('Template editor: what Publish needs, at each field', () => {
  it('an empty template: Publish asks nothing of the server and marks name, from address and subject', async () => {
    const calls = network(wire({ name: '', from_email: '', reply_email: '', subject: '' }), () => json({}));
    const { alerts } = await openEditor();
    await click(screen.getByTestId('publish'));
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    expect(editor().dataset.requestStatus).toBe('rejected');
    expect(screen.getByTestId('error-name').textContent).toBe('Give the template a name to publish it');
    expect(screen.getByTestId('error-from-email').textContent).toBe(
      'Choose a from address at one of your verified domains',
    );
    expect(screen.getByTestId('error-subject').textContent).toBe('Give the template a subject to publish it');
    const name = screen.getByTestId<HTMLInputElement>('field-name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(name.getAttribute('aria-describedby')).toBe('error-name');
    expect(alerts().join(' ')).toMatch(/cannot be published/);
    // typing in a field clears its message only
    await type(name, 'Receipt');
    expect(screen.queryByTestId('error-name')).toBeNull();
    expect(screen.getByTestId('error-subject')).toBeTruthy();
  });

  it("the placeholder name 'Untitled Template' is not a name to publish", async () => {
    const calls = network(wire({ name: 'Untitled Template' }), () => json({}));
    await openEditor();
    await click(screen.getByTestId('publish'));
    expect(screen.getByTestId('error-name')).toBeTruthy();
    expect(screen.queryByTestId('error-subject')).toBeNull();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });

  it("the server's 422 details land at their fields (a domain that stopped being verified, the HTML)", async () => {
    const refused = () =>
      json(
        {
          error: {
            code: 'unprocessable',
            message: 'The template cannot be published: …',
            details: [
              {
                path: 'content_html',
                line: 2,
                column: 5,
                message: "content_html line 2, column 5: parse error: expecting 'ID', got 'INVALID'",
              },
              {
                path: 'from_email',
                message: 'The domain shop.example is not a verified sending domain of this account',
              },
            ],
          },
        },
        422,
      );
    const calls = network(wire(), refused);
    await openEditor();
    await click(screen.getByTestId('publish'));
    await vi.waitFor(() => expect(editor().dataset.requestStatus).toBe('rejected'));
    expect((calls.find((c) => c.method === 'PUT')?.body as { status?: string } | undefined)?.status).toBe('published');
    expect(screen.getByTestId('error-from-email').textContent).toMatch(/shop.example is not a verified sending domain/);
    expect(screen.getByTestId('error-html').textContent).toMatch(
      /line 2, column 5: parse error: expecting 'ID', got 'INVALID'/,
    );
  });

  it(
    'Save of a published template keeps its status without ' + 'publishing, and says the changes are not sent yet',
    async () => {
      const calls = network(
        wire({ status: 'published', published_timestamp: '2026-11-23T10:00:00Z', unpublished_changes: false }),
        () => json({ template: wire({ status: 'published', unpublished_changes: true }), message: 'Save complete' }),
      );
      await openEditor();
      expect(screen.queryByTestId('unpublished-changes')).toBeNull();
      await click(screen.getByTestId('save'));
      await vi.waitFor(() => expect(editor().dataset.requestStatus).toBe('resolved'));
      expect(calls.find((c) => c.method === 'PUT')?.body).not.toHaveProperty('status');
      expect(screen.getByTestId('template-status').textContent).toBe('Published');
      expect(screen.getByTestId('unpublished-changes').textContent).toMatch(/not sent until you publish/);
    },
  );
});

describe('Template editor: the HTML field', () => {
  it(
    'a compile error found by the preview is shown beside the editor with its line, and goes when the HTML ' +
      'compiles',
    async () => {
      let broken = true;
      network(wire(), undefined, () =>
        broken
          ? json(
              {
                error: {
                  code: 'unprocessable',
                  message: 'The template does not compile: …',
                  details: [
                    {
                      path: 'content_html',
                      line: 79,
                      column: 12,
                      message: "content_html line 79, column 12: parse error: expecting 'ID', got 'EOF'",
                    },
                  ],
                },
              },
              422,
            )
          : json({ html: '<p>Hi</p>', subject: 'Your receipt', variables: [] }),
      );
      const { store } = await openEditor();
      const error = await screen.findByTestId('error-html');
      expect(error.textContent).toBe(
        'The HTML does not compile (line 79, column 12: parse error: expecting ' +
          "'ID', got 'EOF'). Save keeps it as it is; Publish needs it to compile.",
      );
      expect(store.compileError.get()).toEqual({
        line: 79,
        column: 12,
        message: "content_html line 79, column 12: parse error: expecting 'ID', got 'EOF'",
      });
      broken = false;
      await act(async () => store.renderPreview());
      expect(screen.queryByTestId('error-html')).toBeNull();
    },
  );

  it('is a plain textarea first; CodeMirror takes over what was typed in it', async () => {
    network(wire());
    const { store } = await openEditor();
    const plain = screen.getByTestId<HTMLTextAreaElement>('code-editor-plain');
    expect(screen.getByTestId('code-editor').dataset.ready).toBe('no');
    expect(plain.value).toBe('<p>Hi</p>');
    await act(async () => void fireEvent.change(plain, { target: { value: '<p>Typed before it loaded</p>' } }));
    expect(store.fields.get().content_html).toBe('<p>Typed before it loaded</p>');
    await vi.waitFor(() => expect(screen.getByTestId('code-editor').dataset.ready).toBe('yes'), { timeout: 10_000 });
    expect(screen.queryByTestId('code-editor-plain')).toBeNull();
    expect(document.querySelector('.cm-content')?.textContent).toBe('<p>Typed before it loaded</p>');
  });
});
