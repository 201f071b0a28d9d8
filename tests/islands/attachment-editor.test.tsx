// The online attachment editor (docs/console-reports.md §4 Toggles, Save flows, Load failure; §8 messages; §9
// delays): the expiry toggle sets the expiry to now or clears it to null; the access limit toggle off
// sets 0 and hides the number; Save on a new page creates the link and goes to its edit page; Save &
// Exit says 'Save successful' and goes to the list 2 s later; a refused save says 'Unable to save:
// {message}'; a link that cannot be loaded says 'Unable to get attachments' and goes back to the
// list 5 s later; an upload on a new page creates the link first, shows the file as pending with its
// progress, then replaces it by the returned asset or removes it, with a message cleared after 4 s
// (fake timers and clock, no sleeps). Uploads go through XMLHttpRequest (for upload progress), so
// that is stubbed at the network boundary too (FakeUpload below).
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { json, later, stubNetwork, type Call, type Route, until } from './network.ts';

const BASE = '/v1/tracked-attachments';

function group(id: number, options = { expiry_timestamp: null as number | null, access_limit: 0 }) {
  return {
    id,
    name: 'Price lists',
    created_timestamp: 1_795_000_000,
    preview_link: `http://console.test/a/preview-${id}`,
    integration_id: `int-${id}`,
    options,
    asset_count: 1,
    assets: [{ id: 3, name: 'prices.pdf', size: 2048, content_type: 'application/pdf' }],
  };
}

/** The 'group' part of the FormData a create sends, or the JSON body of an update. */
function groupSent(call: Call): unknown {
  return call.body instanceof FormData ? JSON.parse(String(call.body.get('group'))) : call.body;
}

const byTestId = <T extends HTMLElement>(id: string) => screen.getByTestId<T>(id);
const click = (element: HTMLElement) => act(async () => element.click());
const alert = () => screen.queryByTestId('alert');
const saves = (calls: Call[]) => calls.filter((c) => c.method === 'POST' || c.method === 'PATCH');

/** An upload in flight: the store's XMLHttpRequest, answered by the test. */
class FakeUpload {
  static sent: FakeUpload[] = [];
  method = '';
  url = '';
  body: FormData | null = null;
  status = 0;
  response: unknown = null;
  responseType = '';
  private readonly listeners = new EventTarget();
  private readonly uploadListeners = new EventTarget();
  readonly upload = {
    addEventListener: (type: string, listener: (e: ProgressEvent) => void) =>
      this.uploadListeners.addEventListener(type, listener as EventListener),
  };
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader() {}
  addEventListener(type: string, listener: () => void) {
    this.listeners.addEventListener(type, listener);
  }
  send(body: FormData) {
    this.body = body;
    FakeUpload.sent.push(this);
  }
  progress(loaded: number, total: number) {
    this.uploadListeners.dispatchEvent(new ProgressEvent('progress', { lengthComputable: true, loaded, total }));
  }
  answer(status: number, response: unknown) {
    this.status = status;
    this.response = response;
    this.listeners.dispatchEvent(new Event('load'));
  }
}

let assign: MockInstance<(url: string | URL) => void>;

/** The editor for link `id` (null: the create page) and the layout's alerts, with fresh stores. */
async function renderEditor(id: number | null, routes: Record<string, Route>): Promise<Call[]> {
  const calls = stubNetwork({
    [`GET ${BASE}/branding`]: () => json({ error: { code: 'not_found', message: 'none' } }, 404),
    ...routes,
  });
  vi.resetModules();
  const { default: AttachmentEditor } = await import('../../src/islands/AttachmentEditor.tsx');
  const { default: Alerts } = await import('../../src/islands/Alerts.tsx');
  render(
    <>
      <AttachmentEditor id={id} />
      <Alerts />
    </>,
  );
  return calls;
}

beforeEach(() => {
  vi.unstubAllGlobals();
  FakeUpload.sent = [];
  assign = vi.spyOn(window.location, 'assign').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('Online attachment editor: toggles (§4 Toggles)', () => {
  it('proposes an expiry a week ahead when switched on ' + ' and clears it to null when switched off', async () => {
    const now = Date.UTC(2026, 10, 23, 17, 4, 31);
    const calls = await renderEditor(null, {
      [`POST ${BASE}/groups`]: (call) =>
        json(group(42, (groupSent(call) as { options: ReturnType<typeof group>['options'] }).options), 201),
    });
    await click(byTestId('tab-settings'));
    const expiry = byTestId<HTMLInputElement>('expiry-toggle');
    expect(expiry.checked).toBe(false);
    expect(screen.queryByTestId('attachment-expiry')).toBeNull();

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    await click(expiry);
    expect(expiry.checked).toBe(true);
    expect(byTestId('attachment-expiry')).toBeTruthy();
    const { draft } = await import('../../src/stores/attachments.ts');
    const weekAhead = Math.floor(now / 1000) + 7 * 86_400;
    expect(draft.get().expiry).toBe(weekAhead);

    await click(byTestId('attachment-save'));
    await until(() => saves(calls).length);
    expect(groupSent(saves(calls)[0]!)).toEqual({
      name: 'Untitled',
      options: { expiry_timestamp: weekAhead, access_limit: 0 },
    });
    await until(() => byTestId('attachment-editor').getAttribute('aria-busy') === 'false'); // saved
    expect(expiry.checked).toBe(true);

    await click(expiry);
    expect(expiry.checked).toBe(false);
    expect(screen.queryByTestId('attachment-expiry')).toBeNull();
    expect(draft.get().expiry).toBeNull();
  });

  it('refuses at the field an expiry that is no longer in the future, and sends nothing', async () => {
    const now = Date.UTC(2026, 10, 23, 17, 4, 31);
    const calls = await renderEditor(7, {
      [`GET ${BASE}/groups/7`]: () => json(group(7)),
      [`PATCH ${BASE}/groups/7`]: () => json(group(7)),
    });
    await vi.waitFor(() => expect(byTestId('attachment-name').textContent).toBe('Price lists'));
    await click(byTestId('tab-settings'));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    await click(byTestId('expiry-toggle'));
    // the page stays open for eight days: the proposed week has passed
    vi.setSystemTime(now + 8 * 86_400_000);
    await click(byTestId('tab-files'));
    await click(byTestId('attachment-save'));
    expect(saves(calls)).toEqual([]);
    // the message is at the field, on the Settings tab the page switched to
    const message = byTestId('attachment-expiry-error');
    expect(message.textContent).toBe('The expiry must be in the future');
    expect(byTestId('attachment-expiry').getAttribute('aria-invalid')).toBe('true');
    expect(byTestId('attachment-expiry').getAttribute('aria-describedby')).toBe(message.id);
    expect(alert()).toBeNull();

    // switched off and on again: a new week ahead, saved
    await click(byTestId('expiry-toggle'));
    await click(byTestId('expiry-toggle'));
    expect(screen.queryByTestId('attachment-expiry-error')).toBeNull();
    await click(byTestId('attachment-save'));
    await until(() => saves(calls).length);
    expect(groupSent(saves(calls)[0]!)).toMatchObject({
      options: { expiry_timestamp: Math.floor(now / 1000) + 15 * 86_400 },
    });
  });

  it('shows the access limit number while the limit is on, and sets 0 and hides it when switched off', async () => {
    const calls = await renderEditor(7, {
      [`GET ${BASE}/groups/7`]: () => json(group(7, { expiry_timestamp: null, access_limit: 5 })),
      [`PATCH ${BASE}/groups/7`]: (call) =>
        json({
          ...group(7),
          options: (call.body as { options: { expiry_timestamp: null; access_limit: number } }).options,
        }),
    });
    await click(byTestId('tab-settings'));
    const limit = byTestId<HTMLInputElement>('limit-toggle');
    await vi.waitFor(() => expect(limit.checked).toBe(true));
    expect(byTestId<HTMLInputElement>('attachment-limit').value).toBe('5');

    await click(limit);
    expect(limit.checked).toBe(false);
    expect(screen.queryByTestId('attachment-limit')).toBeNull();
    await click(byTestId('attachment-save'));
    await until(() => saves(calls).length);
    expect(saves(calls)[0]).toMatchObject({ method: 'PATCH', path: `${BASE}/groups/7` });
    expect(groupSent(saves(calls)[0]!)).toEqual({
      name: 'Price lists',
      options: { expiry_timestamp: null, access_limit: 0 },
    });

    // on again: a limit of at least one download, editable
    await vi.waitFor(() =>
      expect(byTestId<HTMLFieldSetElement>('attachment-editor').getAttribute('aria-busy')).toBe('false'),
    );
    await click(limit);
    expect(byTestId<HTMLInputElement>('attachment-limit').value).toBe('1');
    await act(async () => void fireEvent.change(byTestId('attachment-limit'), { target: { value: '3' } }));
    expect(byTestId<HTMLInputElement>('attachment-limit').value).toBe('3');
  });
});

describe('Online attachment editor: saving (§4 Save flows, §8)', () => {
  it('creates the link on a new page, then goes to its edit page', async () => {
    const created = later();
    const calls = await renderEditor(null, { [`POST ${BASE}/groups`]: () => created.promise });
    await click(byTestId('attachment-save'));
    expect(saves(calls).map((c) => `${c.method} ${c.path}`)).toEqual([`POST ${BASE}/groups`]);
    expect(groupSent(saves(calls)[0]!)).toEqual({
      name: 'Untitled',
      options: { expiry_timestamp: null, access_limit: 0 },
    });
    expect(byTestId('attachment-editor').getAttribute('aria-busy')).toBe('true'); // disabled while pending
    expect(assign).not.toHaveBeenCalled();

    await act(async () => created.resolve(json(group(42), 201)));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/online-attachments/42/edit'));
    expect(assign).toHaveBeenCalledTimes(1);
  });

  it("Save & Exit says 'Save successful' and goes to the list 2 s later", async () => {
    const calls = await renderEditor(7, {
      [`GET ${BASE}/groups/7`]: () => json(group(7)),
      [`PATCH ${BASE}/groups/7`]: () => json(group(7)),
    });
    await vi.waitFor(() => expect(byTestId('attachment-name').textContent).toBe('Price lists'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await click(byTestId('attachment-save-exit'));
    const shown = await until(alert);
    expect(shown.textContent).toBe('Save successful');
    expect(shown.classList.contains('is-success')).toBe(true);
    expect(saves(calls).map((c) => `${c.method} ${c.path}`)).toEqual([`PATCH ${BASE}/groups/7`]);
    await act(() => vi.advanceTimersByTimeAsync(1_999));
    expect(assign).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(assign).toHaveBeenCalledWith('/online-attachments');
  });

  it("says 'Unable to save: {server message}' in a danger alert and stays on the page", async () => {
    await renderEditor(7, {
      [`GET ${BASE}/groups/7`]: () => json(group(7)),
      [`PATCH ${BASE}/groups/7`]: () =>
        json({ error: { code: 'invalid', message: 'The access limit must be a whole number' } }, 422),
    });
    await vi.waitFor(() => expect(byTestId('attachment-name').textContent).toBe('Price lists'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await click(byTestId('attachment-save-exit'));
    const shown = await until(alert);
    expect(shown.textContent).toBe('Unable to save: The access limit must be a whole number');
    expect(shown.classList.contains('is-danger')).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    expect(assign).not.toHaveBeenCalled();
    expect(byTestId('attachment-editor').getAttribute('aria-busy')).toBe('false'); // can try again
  });
});

describe('Online attachment editor: the name', () => {
  const typeName = async (text: string) => {
    await click(byTestId('attachment-name-edit'));
    const input = byTestId<HTMLInputElement>('attachment-name-input');
    expect(document.activeElement).toBe(input);
    await act(async () => void fireEvent.change(input, { target: { value: text } }));
    return input;
  };

  it('keeps a name confirmed with Enter, and the first upload creates the link with it', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeUpload);
    vi.spyOn(window.history, 'replaceState').mockImplementation(() => {});
    const calls = await renderEditor(null, {
      [`POST ${BASE}/groups`]: (call) =>
        json({ ...group(42), name: (groupSent(call) as { name: string }).name, assets: [], asset_count: 0 }, 201),
    });
    const input = await typeName('  Price lists 2027 ');
    await act(async () => void fireEvent.submit(input.form!)); // what Enter in the field does
    expect(byTestId('attachment-name').textContent).toBe('Price lists 2027');
    expect(document.activeElement).toBe(byTestId('attachment-name-edit'));
    await act(
      async () => void fireEvent.change(byTestId('file-input'), { target: { files: [new File(['x'], 'prices.pdf')] } }),
    );
    await until(() => FakeUpload.sent[0]);
    expect(saves(calls).map((c) => groupSent(c))).toEqual([
      { name: 'Price lists 2027', options: { expiry_timestamp: null, access_limit: 0 } },
    ]);
  });

  it('keeps the name when the field is left, and when a file is dropped while it is typed', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeUpload);
    vi.spyOn(window.history, 'replaceState').mockImplementation(() => {});
    const calls = await renderEditor(null, {
      [`POST ${BASE}/groups`]: () => json({ ...group(42), assets: [], asset_count: 0 }, 201),
    });
    await act(async () => void fireEvent.blur(await typeName('Left behind')));
    expect(byTestId('attachment-name').textContent).toBe('Left behind');

    await typeName('Dropped in');
    await act(
      async () => void fireEvent.drop(byTestId('dropzone'), { dataTransfer: { files: [new File(['x'], 'a.txt')] } }),
    );
    await until(() => FakeUpload.sent[0]);
    expect(byTestId('attachment-name').textContent).toBe('Dropped in');
    expect((groupSent(saves(calls)[0]!) as { name: string }).name).toBe('Dropped in');
  });

  it.each([
    ['Tab, to the field’s Save button', 'attachment-name-save', true],
    ['a click on the Files tab', 'tab-files', false],
    ['a click on nothing that takes focus', null, false],
  ])(
    'on the edit page, leaving the field by %s keeps the name and shows it as the heading',
    async (_, to, backToEdit) => {
      const calls = await renderEditor(7, {
        [`GET ${BASE}/groups/7`]: () => json(group(7)),
        [`PATCH ${BASE}/groups/7`]: (call) => json({ ...group(7), name: (groupSent(call) as { name: string }).name }),
      });
      await vi.waitFor(() => expect(byTestId('attachment-name').textContent).toBe('Price lists'));
      const input = await typeName('Price lists 2028');
      const relatedTarget = to === null ? null : byTestId(to);
      await act(async () => void fireEvent.blur(input, { relatedTarget }));
      expect(screen.queryByTestId('attachment-name-input')).toBeNull();
      expect(screen.getByRole('heading', { name: 'Price lists 2028' })).toBe(byTestId('attachment-name'));
      // the Save button Tab went to left with the form: the keyboard is on Edit, where the field was
      if (backToEdit) expect(document.activeElement).toBe(byTestId('attachment-name-edit'));
      else expect(document.activeElement).not.toBe(byTestId('attachment-name-edit'));
      await click(byTestId('attachment-save'));
      await until(() => saves(calls).length);
      expect((groupSent(saves(calls)[0]!) as { name: string }).name).toBe('Price lists 2028');
    },
  );

  it('Escape cancels the edit and keeps the name it had', async () => {
    const calls = await renderEditor(null, {
      [`POST ${BASE}/groups`]: (call) =>
        json(group(42, (groupSent(call) as { options: ReturnType<typeof group>['options'] }).options), 201),
    });
    const input = await typeName('Never mind');
    await act(async () => void fireEvent.keyDown(input, { key: 'Escape' }));
    // leaving the field as it goes must not keep what Escape cancelled
    await act(async () => void fireEvent.blur(input));
    expect(screen.queryByTestId('attachment-name-input')).toBeNull();
    expect(byTestId('attachment-name').textContent).toBe('Untitled');
    expect(document.activeElement).toBe(byTestId('attachment-name-edit'));
    await click(byTestId('attachment-save'));
    await until(() => saves(calls).length);
    expect((groupSent(saves(calls)[0]!) as { name: string }).name).toBe('Untitled');
  });
});

describe('Online attachment editor: load failure (§4, §8, §9)', () => {
  it("says 'Unable to get attachments', keeps the page disabled and goes back to the list 5 s later", async () => {
    const answer = later();
    await renderEditor(7, { [`GET ${BASE}/groups/7`]: () => answer.promise });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => answer.resolve(json({ error: { code: 'not_found', message: 'No such link' } }, 404)));
    const shown = await until(alert);
    expect(shown.textContent).toBe('Unable to get attachments');
    expect(shown.classList.contains('is-danger')).toBe(true);
    expect(byTestId('attachment-editor').getAttribute('aria-busy')).toBe('true');
    expect(byTestId<HTMLButtonElement>('attachment-save').closest('fieldset')!.disabled).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(4_999));
    expect(assign).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(assign).toHaveBeenCalledWith('/online-attachments');
    expect(assign).toHaveBeenCalledTimes(1);
  });
});

describe('Online attachment editor: uploads (§4 Upload, §8, §9)', () => {
  const pick = (file: File) =>
    act(async () => void fireEvent.change(byTestId('file-input'), { target: { files: [file] } }));
  const rows = (testId: string) =>
    screen.queryAllByTestId(testId).map((row) => row.querySelector('.file-name')!.textContent);

  it(
    'creates the link first on a new page, shows the file pending with its progress, then the returned asset; the ' +
      'message clears after 4 s',
    async () => {
      vi.stubGlobal('XMLHttpRequest', FakeUpload);
      const replace = vi.spyOn(window.history, 'replaceState').mockImplementation(() => {});
      const calls = await renderEditor(null, {
        [`POST ${BASE}/groups`]: () => json({ ...group(42), assets: [], asset_count: 0 }, 201),
      });
      const file = new File(['x'.repeat(4096)], 'terms.pdf', { type: 'application/pdf' });
      await pick(file);
      expect(rows('upload-row')).toEqual(['terms.pdf']);
      const upload = await until(() => FakeUpload.sent[0]);
      // the link, before the file
      expect(saves(calls).map((c) => `${c.method} ${c.path}`)).toEqual([`POST ${BASE}/groups`]);
      expect(upload).toMatchObject({ method: 'POST', url: `${BASE}/groups/42/assets` });
      expect(upload.body!.get('asset')).toBeInstanceOf(File);
      expect(replace).toHaveBeenCalledWith(null, '', '/online-attachments/42/edit');

      await act(async () => upload.progress(1024, 4096));
      expect(byTestId<HTMLProgressElement>('upload-progress').getAttribute('value')).toBe('25');

      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      await act(async () =>
        upload.answer(201, { assets: [{ id: 9, name: 'terms.pdf', size: 4096, content_type: 'application/pdf' }] }),
      );
      expect(rows('upload-row')).toEqual([]);
      expect(rows('file-row')).toEqual(['terms.pdf']);
      expect(byTestId('files-count').textContent).toBe('1 file(s) uploaded');
      expect(byTestId('file-message').textContent).toBe('terms.pdf uploaded');
      await act(() => vi.advanceTimersByTimeAsync(3_999));
      expect(screen.queryByTestId('file-message')).not.toBeNull();
      await act(() => vi.advanceTimersByTimeAsync(1));
      expect(screen.queryByTestId('file-message')).toBeNull();
    },
  );

  it("removes a refused file and says 'Unable to upload file: {server message}' for 4 s", async () => {
    vi.stubGlobal('XMLHttpRequest', FakeUpload);
    const calls = await renderEditor(7, { [`GET ${BASE}/groups/7`]: () => json(group(7)) });
    await vi.waitFor(() => expect(rows('file-row')).toEqual(['prices.pdf']));
    await pick(new File(['x'], 'huge.iso'));
    const upload = await until(() => FakeUpload.sent[0]);
    expect(upload.url).toBe(`${BASE}/groups/7/assets`);
    expect(saves(calls)).toEqual([]); // the link exists: nothing created

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () =>
      upload.answer(413, { error: { code: 'too_large', message: 'The file is larger than 25 MB' } }),
    );
    expect(rows('upload-row')).toEqual([]);
    expect(rows('file-row')).toEqual(['prices.pdf']);
    expect(byTestId('file-message').textContent).toBe('Unable to upload file: The file is larger than 25 MB');
    expect(byTestId('file-message').classList.contains('is-danger')).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(4_000));
    expect(screen.queryByTestId('file-message')).toBeNull();
  });
});
