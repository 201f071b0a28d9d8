// The Webhook modal of Settings (docs/console.md §2 Webhooks card, §4 Webhook modal, §5, §8, §9): a new
// webhook starts as post, Active (enabled), standard and every event; Active toggles the status;
// Basic starts with an empty username and password, None removes them (sent as auth_type null, no
// credentials); event checkboxes add and remove events, Delayed and Complaint (ours) among them,
// unticked on a webhook saved without them; Save with an empty URL says 'Webhook URL is
// empty' for 2 s and sends nothing; a refusal shows the server's message; a success shows 'Webhook
// saved successfully.' and reloads the page 2 s later (fake timers, no sleeps).
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork, type Call, type Route, until } from './network.ts';
import type { Webhook } from '../../src/stores/webhook.ts';

const ALL_EVENTS = ['sent', 'delayed', 'failed', 'bounce', 'complaint', 'open', 'click', 'unsubscribe', 'resubscribe'];
/** The spec's seven: what a webhook saved before delayed and complaint existed holds */
const SEVEN = ['sent', 'failed', 'bounce', 'open', 'click', 'unsubscribe', 'resubscribe'];

const SAVED = {
  url: 'https://hooks.example/transact',
  verb: 'put',
  status: 'enabled',
  auth_type: 'basic',
  auth_details: { username: 'hook-user', password: 'hook-pass' },
  event_types: ['sent', 'bounce'],
  field_set: 'legacy',
  created_timestamp: '2026-11-01T10:00:00.000Z',
};

const modal = () => screen.getByTestId('webhook-modal');
const byTestId = <T extends HTMLElement>(id: string) => within(modal()).getByTestId<T>(id);
const change = (field: HTMLElement, value: string) =>
  act(async () => void fireEvent.change(field, { target: { value } }));
const click = (element: HTMLElement) => act(async () => element.click());
/**
 * Clicks Save on a fake clock: the alert's 2 s and the reload a success schedules 2 s later are timers of
 * the test, gone with it (afterEach), instead of real ones that fired in a later test's reload spy when
 * a loaded machine made the tests slower than 2 s (seen in CI).
 */
const save = () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  return click(byTestId('webhook-save'));
};
const posts = (calls: Call[]) => calls.filter((c) => c.method === 'POST');

/**
 * Settings' pencil and the layout's alerts with fresh stores (module state, loaded once per page),
 * the GET answered with `saved` (none: a new webhook), and the modal opened.
 */
async function openModal(saved: object | undefined, save?: Route): Promise<Call[]> {
  const calls = stubNetwork({
    'GET /v1/webhooks': () => json({ data: saved ? [saved] : [] }),
    ...(save ? { 'POST /v1/webhooks': save } : {}),
  });
  vi.resetModules();
  const { default: WebhookEditor } = await import('../../src/islands/WebhookEditor.tsx');
  const { default: Alerts } = await import('../../src/islands/Alerts.tsx');
  // the island loads the modal lazily: loaded here first, so the query for the dialog waits for
  // React alone, not for the module's first load (over a second on a loaded machine)
  await import('../../src/components/WebhookModal.tsx');
  render(
    <>
      <WebhookEditor />
      <Alerts />
    </>,
  );
  const pencil = screen.getByRole<HTMLButtonElement>('button', { name: 'Edit webhook' });
  await vi.waitFor(() => expect(pencil.disabled).toBe(false));
  await click(pencil);
  await screen.findByRole('dialog', { name: 'Webhook' });
  return calls;
}

const alert = () => screen.queryByTestId('alert');

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('Webhook modal', () => {
  it('starts a new webhook as post, Active, standard, no authentication and every event ticked (§9)', async () => {
    await openModal(undefined);
    expect(byTestId<HTMLInputElement>('webhook-url-input').value).toBe('');
    expect(byTestId<HTMLSelectElement>('webhook-verb-select').value).toBe('post');
    expect(byTestId<HTMLInputElement>('webhook-active').checked).toBe(true);
    expect(byTestId<HTMLSelectElement>('webhook-auth-select').value).toBe('');
    expect(within(modal()).queryByTestId('webhook-basic-fields')).toBeNull();
    expect(byTestId<HTMLInputElement>('webhook-field-set-standard').checked).toBe(true);
    expect(byTestId<HTMLInputElement>('webhook-field-set-legacy').checked).toBe(false);
    for (const event of ALL_EVENTS)
      expect(byTestId<HTMLInputElement>(`webhook-event-${event}`).checked, event).toBe(true);
  });

  it('saves a new webhook with its defaults as the POST /v1/webhooks body', async () => {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = await openModal(undefined, () => json({ data: [] }));
    await change(byTestId('webhook-url-input'), 'https://hooks.example/new');
    await save();
    await until(() => posts(calls)[0]);
    expect(posts(calls)).toEqual([
      {
        method: 'POST',
        path: '/v1/webhooks',
        body: {
          url: 'https://hooks.example/new',
          verb: 'post',
          status: 'enabled',
          auth_type: null,
          auth_details: null,
          event_types: ALL_EVENTS,
          field_set: 'standard',
          // ours: what email.received would carry, were it a Resend webhook listening to it
          received_content: 'metadata',
          received_inline_max_bytes: 262_144,
        },
      },
    ]);
  });

  it('toggles the status with Active and adds and removes events with their checkboxes (§4)', async () => {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = await openModal(undefined, () => json({ data: [] }));
    await change(byTestId('webhook-url-input'), 'https://hooks.example/new');
    const active = byTestId<HTMLInputElement>('webhook-active');
    await click(active);
    expect(active.checked).toBe(false);
    await click(active);
    await click(active);
    expect(active.checked).toBe(false);

    await click(byTestId('webhook-event-open'));
    await click(byTestId('webhook-event-click'));
    await click(byTestId('webhook-event-sent'));
    await click(byTestId('webhook-event-sent')); // ticked again
    expect(byTestId<HTMLInputElement>('webhook-event-open').checked).toBe(false);
    expect(byTestId<HTMLInputElement>('webhook-event-sent').checked).toBe(true);

    await change(byTestId('webhook-verb-select'), 'patch');
    await save();
    const saved = await until(() => posts(calls)[0]);
    expect(saved.body).toMatchObject({
      status: 'disabled',
      verb: 'patch',
      event_types: ['sent', 'delayed', 'failed', 'bounce', 'complaint', 'unsubscribe', 'resubscribe'],
    });
  });

  it('labels Delayed and Complaint; unticked they are left out, ticked again sent in order', async () => {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = await openModal(undefined, () => json({ data: [] }));
    const events = within(modal()).getByRole('group', { name: 'Events' });
    expect(within(events).getByRole('checkbox', { name: 'Delayed' })).toBe(byTestId('webhook-event-delayed'));
    expect(within(events).getByRole('checkbox', { name: 'Complaint' })).toBe(byTestId('webhook-event-complaint'));
    expect(within(events).getAllByRole('checkbox')).toHaveLength(ALL_EVENTS.length);
    await change(byTestId('webhook-url-input'), 'https://hooks.example/new');
    await click(byTestId('webhook-event-delayed'));
    await click(byTestId('webhook-event-complaint'));
    expect(byTestId<HTMLInputElement>('webhook-event-delayed').checked).toBe(false);
    expect(byTestId<HTMLInputElement>('webhook-event-complaint').checked).toBe(false);
    await click(byTestId('webhook-event-complaint')); // ticked again
    await save();
    const saved = await until(() => posts(calls)[0]);
    expect((saved.body as { event_types: string[] }).event_types).toEqual(ALL_EVENTS.filter((e) => e !== 'delayed'));
  });

  it('shows a webhook saved with the seven events with Delayed and Complaint unticked, and keeps them so', async () => {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = await openModal({ ...SAVED, event_types: SEVEN }, () => json({ data: [] }));
    for (const event of SEVEN) expect(byTestId<HTMLInputElement>(`webhook-event-${event}`).checked, event).toBe(true);
    expect(byTestId<HTMLInputElement>('webhook-event-delayed').checked).toBe(false);
    expect(byTestId<HTMLInputElement>('webhook-event-complaint').checked).toBe(false);
    await save();
    const saved = await until(() => posts(calls)[0]);
    expect((saved.body as { event_types: string[] }).event_types).toEqual(SEVEN);
  });

  it('shows a saved webhook, resets the credentials to empty on Basic and removes them on None (§4, §5)', async () => {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = await openModal(SAVED, () => json({ data: [] }));
    expect(byTestId<HTMLInputElement>('webhook-url-input').value).toBe(SAVED.url);
    expect(byTestId<HTMLSelectElement>('webhook-verb-select').value).toBe('put');
    expect(byTestId<HTMLInputElement>('webhook-username').value).toBe('hook-user');
    expect(byTestId<HTMLInputElement>('webhook-event-bounce').checked).toBe(true);
    expect(byTestId<HTMLInputElement>('webhook-event-open').checked).toBe(false);
    expect(byTestId<HTMLInputElement>('webhook-field-set-legacy').checked).toBe(true);

    const auth = byTestId<HTMLSelectElement>('webhook-auth-select');
    await change(auth, '');
    expect(within(modal()).queryByTestId('webhook-basic-fields')).toBeNull();
    await change(auth, 'basic');
    // chosen again: empty, not the credentials the webhook had
    expect(byTestId<HTMLInputElement>('webhook-username').value).toBe('');
    expect(byTestId<HTMLInputElement>('webhook-password').value).toBe('');
    await change(byTestId('webhook-username'), 'other-user');
    await change(auth, '');
    await save();
    const saved = await until(() => posts(calls)[0]);
    const body = saved.body as Record<string, unknown>;
    expect(body.auth_type).toBeNull();
    expect(body.auth_details ?? null).toBeNull(); // no credentials sent
    expect(body).toMatchObject({
      url: SAVED.url,
      verb: 'put',
      status: 'enabled',
      event_types: ['sent', 'bounce'],
      field_set: 'legacy',
    });
  });

  it('sends the Basic credentials typed after choosing Basic', async () => {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = await openModal(undefined, () => json({ data: [] }));
    await change(byTestId('webhook-url-input'), 'https://hooks.example/new');
    await change(byTestId('webhook-auth-select'), 'basic');
    expect(byTestId<HTMLInputElement>('webhook-username').value).toBe('');
    await change(byTestId('webhook-username'), 'me');
    await change(byTestId('webhook-password'), 'pw');
    await save();
    const saved = await until(() => posts(calls)[0]);
    expect(saved.body).toMatchObject({ auth_type: 'basic', auth_details: { username: 'me', password: 'pw' } });
  });

  it('says "Webhook URL is empty" in a danger alert for 2 s and sends nothing (§5, §8)', async () => {
    const calls = await openModal(undefined, () => json({ data: [] }));
    await change(byTestId('webhook-url-input'), '   ');
    await save();
    const shown = await until(alert);
    expect(shown.textContent).toBe('Webhook URL is empty');
    expect(shown.classList.contains('is-danger')).toBe(true);
    expect(byTestId<HTMLButtonElement>('webhook-save').disabled).toBe(false);
    await act(() => vi.advanceTimersByTimeAsync(1_999));
    expect(alert()).not.toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(alert()).toBeNull();
    expect(posts(calls)).toEqual([]);
  });

  it("shows the server's message in a danger alert when the save is refused, and does not reload (§8)", async () => {
    const reload = vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    await openModal(undefined, () =>
      json({ error: { code: 'invalid_url', message: 'The webhook URL must use http or https' } }, 422),
    );
    await change(byTestId('webhook-url-input'), 'ftp://hooks.example');
    await save();
    const shown = await until(alert);
    expect(shown.textContent).toBe('The webhook URL must use http or https');
    expect(shown.classList.contains('is-danger')).toBe(true);
    expect(byTestId<HTMLButtonElement>('webhook-save').disabled).toBe(false); // can try again
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(alert()).toBeNull();
    expect(reload).not.toHaveBeenCalled();
  });

  it('shows "Webhook saved successfully." and reloads the page 2 s after a save (§4, §8)', async () => {
    const reload = vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    await openModal(undefined, () => json({ data: [] }));
    await change(byTestId('webhook-url-input'), 'https://hooks.example/new');
    await save();
    const shown = await until(alert);
    expect(shown.textContent).toBe('Webhook saved successfully.');
    expect(shown.classList.contains('is-success')).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(1_999));
    expect(reload).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(reload).toHaveBeenCalledTimes(1);
  });
});

describe('several webhooks on Settings', () => {
  const RESEND = {
    ...SAVED,
    id: '22222222-2222-4222-8222-222222222222',
    url: 'https://hooks.example/resend',
    verb: 'post',
    auth_type: null,
    auth_details: null,
    event_types: ['email.delivered'],
    field_set: 'resend',
  };
  const FIRST = { ...SAVED, id: '11111111-1111-4111-8111-111111111111' };

  /** The card's list and pencil with two webhooks; every save answered. */
  async function renderCard(): Promise<Call[]> {
    vi.spyOn(window.location, 'reload').mockImplementation(() => {});
    const calls = stubNetwork({
      'GET /v1/webhooks': () => json({ data: [FIRST, RESEND] }),
      'POST /v1/webhooks': () => json({ message: 'Webhook saved successfully.', data: RESEND }),
    });
    vi.resetModules();
    const { default: WebhookEditor } = await import('../../src/islands/WebhookEditor.tsx');
    const { default: WebhookSummary } = await import('../../src/islands/WebhookSummary.tsx');
    await import('../../src/components/WebhookModal.tsx');
    render(
      <>
        <WebhookEditor />
        <WebhookSummary initial={[FIRST, RESEND].map((w) => ({ ...w, auth_details: null }) as Webhook)} />
      </>,
    );
    await vi.waitFor(() => expect(screen.getAllByTestId('webhook-item-edit')[1]).toHaveProperty('disabled', false));
    return calls;
  }

  it('lists each webhook; its Edit opens the modal on it (Resend events for a Resend one), saved by id', async () => {
    const calls = await renderCard();
    expect(screen.getAllByTestId('webhook-url').map((e) => e.textContent)).toEqual([FIRST.url, RESEND.url]);
    await click(screen.getAllByTestId('webhook-item-edit')[1]);
    await screen.findByRole('dialog', { name: 'Webhook' });
    expect(byTestId<HTMLInputElement>('webhook-url-input').value).toBe(RESEND.url);
    expect(byTestId<HTMLInputElement>('webhook-field-set-resend').checked).toBe(true);
    expect(byTestId<HTMLInputElement>('webhook-event-email.delivered').checked).toBe(true);
    expect(within(modal()).queryByTestId('webhook-event-sent')).toBeNull();
    await click(byTestId('webhook-event-email.bounced'));
    await save();
    await until(() => posts(calls)[0]);
    expect(posts(calls)[0].body).toMatchObject({
      id: RESEND.id,
      url: RESEND.url,
      field_set: 'resend',
      event_types: ['email.delivered', 'email.bounced'],
    });
  });

  it('Add webhook opens a new one, saved with add: true; switching to Resend ticks Resend’s events', async () => {
    const calls = await renderCard();
    await click(screen.getByTestId('webhook-add'));
    await screen.findByRole('dialog', { name: 'New webhook' });
    expect(byTestId<HTMLInputElement>('webhook-url-input').value).toBe('');
    await click(byTestId('webhook-field-set-resend'));
    expect(byTestId<HTMLInputElement>('webhook-event-email.suppressed').checked).toBe(true);
    await change(byTestId('webhook-url-input'), 'https://hooks.example/more');
    await save();
    await until(() => posts(calls)[0]);
    const body = posts(calls)[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ add: true, url: 'https://hooks.example/more', field_set: 'resend' });
    expect(body.id).toBeUndefined();
    expect((body.event_types as string[])[0]).toBe('email.sent');
  });

  it('a Resend webhook listening to email.received chooses the whole message and its inline limit', async () => {
    const calls = await renderCard();
    await click(screen.getByTestId('webhook-add'));
    await screen.findByRole('dialog', { name: 'New webhook' });
    expect(within(modal()).queryByTestId('webhook-received')).toBeNull();
    await click(byTestId('webhook-field-set-resend'));
    const content = byTestId<HTMLSelectElement>('webhook-received-content');
    expect(content.value).toBe('metadata');
    expect(within(modal()).queryByTestId('webhook-received-inline')).toBeNull();
    await change(content, 'full');
    const inline = byTestId<HTMLInputElement>('webhook-received-inline');
    expect(inline.value).toBe('256');
    await change(inline, '128');
    await change(inline, '5000'); // beyond 1 MiB: held at 1024 KiB
    expect(inline.value).toBe('1024');
    await change(inline, '128');
    // without email.received ticked there is nothing to choose
    await click(byTestId('webhook-event-email.received'));
    expect(within(modal()).queryByTestId('webhook-received')).toBeNull();
    await click(byTestId('webhook-event-email.received'));
    await change(byTestId('webhook-url-input'), 'https://hooks.example/received');
    await save();
    await until(() => posts(calls)[0]);
    expect(posts(calls)[0].body).toMatchObject({
      add: true,
      field_set: 'resend',
      received_content: 'full',
      received_inline_max_bytes: 131_072,
    });
  });
});
