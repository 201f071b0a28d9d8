// Online attachments' console state (docs/console-reports.md §2 Online Attachments list, create/edit and
// review pages; §4 Save flows, Upload, Toggles, Load failure; §8 messages; §9 timings): the list
// with its search, page and selected row; the link being edited with its files, uploads and
// pending request; and the actions behind every button. Uploads go through XMLHttpRequest for
// real upload progress (fetch has none).
import { atom } from 'nanostores';
import type { DownloadLink } from '../contract/templates.ts';
import { call, errorMessage } from '../lib/api.ts';
import type { LinkState } from '../lib/attachment-state.ts';
import { addDaysToMoment } from '../lib/dates.ts';
import { SEARCH_DEBOUNCE_MS, MESSAGE_CLEAR_MS } from '../lib/timings.ts';
import { showAlert } from './alerts.ts';

export interface Asset {
  id: number;
  name: string;
  size: number;
  content_type?: string;
}

/** A link as the API answers it. */
type Group = DownloadLink;

export interface BrandingColours {
  colour: string;
  text_colour: string;
}

export interface Branding {
  page: BrandingColours;
  button: BrandingColours;
  link: BrandingColours;
  logo: { url: string; fileName: string } | null;
}

/** docs/console-reports.md §9: attachment list page size 8; redirect delays. */
export const LIST_PAGE_SIZE = 8;
export const SAVE_EXIT_MS = 2_000;
export const REVIEW_SAVE_MS = 3_000;
export const LOAD_FAILURE_MS = 5_000;
export const DEFAULT_BRANDING: Branding = {
  page: { colour: '#ffffff', text_colour: '#333333' },
  button: { colour: '#0e78be', text_colour: '#ffffff' }, // white on it: 4.7:1 (WCAG AA)
  link: { colour: '#ffffff', text_colour: '#333333' },
  logo: null,
};

const BASE = '/v1/tracked-attachments';

// ---- the list --------------------------------------------------------------------------------

export interface GroupListState {
  /** 'unset': nothing loaded in this browser yet; the island shows the page the server rendered */
  status: 'unset' | 'loading' | 'loaded' | 'failed';
  data: Group[];
  page: number;
  pages: number;
  total: number;
}

export const list = atom<GroupListState>({ status: 'unset', data: [], page: 1, pages: 1, total: 0 });

/** The first page as the server rendered it: what the list shows before any script runs. */
export interface ListPage {
  data: Group[];
  pagination: { page: number; pages: number; total: number };
}

/** Takes over the page the server rendered, selecting its first row as a load would. */
export function seedList(first: ListPage): void {
  if (list.get().status !== 'unset') return;
  list.set({
    status: 'loaded',
    data: first.data,
    page: first.pagination.page,
    pages: first.pagination.pages,
    total: first.pagination.total,
  });
  selectedId.set(first.data[0]?.id ?? null);
}
export const search = atom('');
export const selectedId = atom<number | null>(null);

let latest = 0;
export async function loadList(page = list.get().page): Promise<void> {
  const request = ++latest;
  list.set({ ...list.get(), status: 'loading' });
  try {
    const answer = await call('GET /v1/tracked-attachments/groups', {
      query: { page, limit: LIST_PAGE_SIZE, name: search.get() },
    });
    if (request !== latest) return;
    list.set({
      status: 'loaded',
      data: answer.data,
      page: answer.pagination.page,
      pages: answer.pagination.pages,
      total: answer.pagination.total,
    });
    // docs/console-reports.md §2: the first row is selected after load
    selectedId.set(answer.data[0]?.id ?? null);
  } catch {
    // docs/console-reports.md §8: group list load errors are silent
    if (request === latest) list.set({ ...list.get(), status: 'failed', data: [] });
  }
}

let searchTimer: ReturnType<typeof setTimeout> | undefined;
export function setSearch(text: string): void {
  search.set(text);
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => void loadList(1), SEARCH_DEBOUNCE_MS);
}

export async function deleteSelected(): Promise<void> {
  const id = selectedId.get();
  if (id === null) return;
  try {
    await call('DELETE /v1/tracked-attachments/groups/{id}', { params: { id: String(id) } });
    // docs/console-reports.md §8: the message defined for group deletion
    showAlert('success', 'Template deleted successfully');
    await loadList();
  } catch {
    // docs/console-reports.md §8: delete errors are silent
  }
}

// ---- branding --------------------------------------------------------------------------------

export const branding = atom<Branding>(DEFAULT_BRANDING);
/** True once this browser asked for the branding: until then the list shows the one the server read. */
export const brandingLoaded = atom(false);

export async function loadBranding(): Promise<void> {
  try {
    branding.set(await call('GET /v1/tracked-attachments/branding'));
  } catch {
    // the defaults stay
  }
  brandingLoaded.set(true);
}

export async function saveBranding(settings: Omit<Branding, 'logo'>, logo: File | null): Promise<boolean> {
  const form = new FormData();
  form.append('settings', JSON.stringify({ page: settings.page, button: settings.button, link: settings.link }));
  if (logo) form.append('asset', logo, logo.name);
  try {
    branding.set(await call('POST /v1/tracked-attachments/branding', { body: form }));
    brandingLoaded.set(true);
    showAlert('success', 'Branding settings saved successful');
    return true;
  } catch (err) {
    showAlert(
      'danger',
      errorMessage(err, '')
        ? `Unable to save branding settings: ${errorMessage(err, '')}`
        : 'Unable to save branding settings',
    );
    return false;
  }
}

export async function deleteLogo(): Promise<void> {
  try {
    await call('DELETE /v1/tracked-attachments/branding/logo');
    branding.set({ ...branding.get(), logo: null });
    showAlert('success', 'Logo successfully deleted');
  } catch {
    showAlert('danger', 'Unable to delete logo');
  }
}

// ---- the editor ------------------------------------------------------------------------------

export interface Upload {
  key: string;
  name: string;
  size: number;
  status: 'uploading';
  /** 0–1 */
  progress: number;
}

export interface Draft {
  id: number | null;
  name: string;
  expiry: number | null;
  accessLimit: number;
  /** counted downloads and the state as last saved (so the preview shows a dead link as such) */
  downloads: number;
  state: LinkState;
  integrationId: string | null;
  previewLink: string | null;
  assets: Asset[];
}

export const NEW_DRAFT: Draft = {
  id: null,
  name: 'Untitled',
  expiry: null,
  accessLimit: 0,
  downloads: 0,
  state: 'live',
  integrationId: null,
  previewLink: null,
  assets: [],
};
export const draft = atom<Draft>(NEW_DRAFT);
export const uploads = atom<Upload[]>([]);
/** Editor request status (docs/console-reports.md §4): the page is disabled while pending. */
export const requestStatus = atom<'idle' | 'pending' | 'resolved' | 'rejected'>('idle');
/** The Files tab's message (docs/console-reports.md §4: cleared after 4 s). */
export const fileMessage = atom<{ kind: 'success' | 'danger'; text: string } | null>(null);
export const loadFailed = atom(false);
/** The Settings tab's message at the expiry field: a time that is not in the future. */
export const expiryError = atom<string | null>(null);
export const EXPIRY_IN_PAST = 'The expiry must be in the future';
/** Switching the expiry on proposes this many days ahead (now would be a dead link). */
export const EXPIRY_PROPOSAL_DAYS = 7;

let messageTimer: ReturnType<typeof setTimeout> | undefined;
function say(kind: 'success' | 'danger', text: string): void {
  fileMessage.set({ kind, text });
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => fileMessage.set(null), MESSAGE_CLEAR_MS);
}

function fromGroup(g: Group): Draft {
  return {
    id: g.id,
    name: g.name,
    expiry: g.options.expiry_timestamp,
    accessLimit: g.options.access_limit,
    downloads: g.downloads,
    state: g.state,
    integrationId: g.integration_id,
    previewLink: g.preview_link,
    assets: g.assets,
  };
}

export function updateDraft(changes: Partial<Draft>): void {
  draft.set({ ...draft.get(), ...changes });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The expiry field's message for `expiry` at `now`: null when it is none or in the future. */
export function expiryProblem(expiry: number | null, now = nowSeconds()): string | null {
  return expiry !== null && expiry <= now ? EXPIRY_IN_PAST : null;
}

/**
 * docs/console-reports.md §4 Toggles, amended here: expiry on proposes a week ahead (the spec's "now" saved a
 * link that was dead at once), off clears it; the access limit off sets 0.
 */
export function toggleExpiry(on: boolean, now = nowSeconds()): void {
  updateDraft({ expiry: on ? addDaysToMoment(now, EXPIRY_PROPOSAL_DAYS) : null });
  expiryError.set(null);
}

/** A moment picked in the expiry field: kept, and refused inline when it is not in the future. */
export function pickExpiry(expiry: number, now = nowSeconds()): void {
  updateDraft({ expiry });
  expiryError.set(expiryProblem(expiry, now));
}

/** The name typed in the title editor (Enter, leaving the field, or an upload commits it). */
export function commitName(text: string): void {
  updateDraft({ name: text.trim() || 'Untitled' });
}

export function toggleAccessLimit(on: boolean): void {
  updateDraft({ accessLimit: on ? Math.max(1, draft.get().accessLimit) : 0 });
}

/** docs/console-reports.md §4 Load failure: 'Unable to get attachments', then the list after 5 s. */
export async function loadGroup(
  id: number,
  go: (path: string) => void = (p) => window.location.assign(p),
): Promise<void> {
  requestStatus.set('pending');
  try {
    draft.set(fromGroup(await call('GET /v1/tracked-attachments/groups/{id}', { params: { id: String(id) } })));
    requestStatus.set('resolved');
  } catch {
    requestStatus.set('rejected');
    loadFailed.set(true);
    showAlert('danger', 'Unable to get attachments', LOAD_FAILURE_MS);
    setTimeout(() => go('/online-attachments'), LOAD_FAILURE_MS);
  }
}

function groupBody(d: Draft) {
  return { name: d.name, options: { expiry_timestamp: d.expiry, access_limit: d.accessLimit } };
}

async function createGroup(d: Draft): Promise<Group> {
  const form = new FormData();
  form.append('group', JSON.stringify(groupBody(d)));
  return call('POST /v1/tracked-attachments/groups', { body: form });
}

/**
 * docs/console-reports.md §4 Save flows: Save on a new page creates the link and goes to its edit page; Save on an
 * existing one updates it; Save & Exit shows 'Save successful' and goes to the list after 2 s.
 */
export async function save(
  exit: boolean,
  go: (path: string) => void = (p) => window.location.assign(p),
): Promise<void> {
  const d = draft.get();
  // a time that passed while the page was open is refused here, at the field, before the server would
  const problem = expiryProblem(d.expiry);
  expiryError.set(problem);
  if (problem) return;
  requestStatus.set('pending');
  try {
    const group =
      d.id === null
        ? await createGroup(d)
        : await call('PATCH /v1/tracked-attachments/groups/{id}', { params: { id: String(d.id) }, body: groupBody(d) });
    draft.set({ ...fromGroup(group), assets: group.assets });
    requestStatus.set('resolved');
    if (exit) {
      showAlert('success', 'Save successful', SAVE_EXIT_MS);
      setTimeout(() => go('/online-attachments'), SAVE_EXIT_MS);
    } else if (d.id === null) {
      go(`/online-attachments/${group.id}/edit`);
    } else {
      showAlert('success', 'Save successful');
    }
  } catch (err) {
    requestStatus.set('rejected');
    showAlert('danger', `Unable to save: ${errorMessage(err, 'Unable to save')}`);
  }
}

/** Review page save (docs/console-reports.md §2): 'Save successful', then the list after 3 s. */
export async function saveReview(go: (path: string) => void = (p) => window.location.assign(p)): Promise<void> {
  const d = draft.get();
  if (d.id === null) return;
  requestStatus.set('pending');
  try {
    await call('PATCH /v1/tracked-attachments/groups/{id}', { params: { id: String(d.id) }, body: groupBody(d) });
    requestStatus.set('resolved');
    showAlert('success', 'Save successful', REVIEW_SAVE_MS);
    setTimeout(() => go('/online-attachments'), REVIEW_SAVE_MS);
  } catch (err) {
    requestStatus.set('rejected');
    showAlert('danger', `Unable to save: ${errorMessage(err, 'Unable to save')}`);
  }
}

interface UploadAnswer {
  status: number;
  body: { assets?: Asset[]; error?: { message?: string } } | null;
}

/**
 * POSTs one file with upload progress (XMLHttpRequest: fetch reports none). No timeout (docs/console-reports.md §7).
 */
function sendFile(groupId: number, file: File, onProgress: (fraction: number) => void): Promise<UploadAnswer> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${BASE}/groups/${groupId}/assets`);
    xhr.setRequestHeader('Request-Type', 'ui');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'json';
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => resolve({ status: xhr.status, body: xhr.response }));
    xhr.addEventListener('error', () => resolve({ status: 0, body: null }));
    const form = new FormData();
    form.append('asset', file, file.name);
    xhr.send(form);
  });
}

let uploadKey = 0;
let creating: Promise<number> | null = null;

/** The link's id, creating the link first when the page has none yet (docs/console-reports.md §4 Upload). */
async function ensureGroup(): Promise<number> {
  const d = draft.get();
  if (d.id !== null) return d.id;
  creating ??= createGroup(d).then((g) => {
    draft.set({ ...draft.get(), id: g.id, integrationId: g.integration_id, previewLink: g.preview_link });
    // the address now names the link, so a reload keeps it
    window.history.replaceState(null, '', `/online-attachments/${g.id}/edit`);
    return g.id;
  });
  try {
    return await creating;
  } finally {
    creating = null;
  }
}

/** Uploads files one after another: each is a pending item replaced by its asset, or removed. */
export async function uploadFiles(files: File[]): Promise<void> {
  const items = files.map((f) => ({
    file: f,
    item: { key: `u${++uploadKey}`, name: f.name, size: f.size, status: 'uploading' as const, progress: 0 },
  }));
  uploads.set([...uploads.get(), ...items.map((i) => i.item)]);
  const drop = (key: string) => uploads.set(uploads.get().filter((u) => u.key !== key));
  let groupId: number;
  try {
    groupId = await ensureGroup();
  } catch (err) {
    for (const i of items) drop(i.item.key);
    say('danger', `Unable to upload file: ${errorMessage(err, 'the link could not be created')}`);
    return;
  }
  for (const { file, item } of items) {
    const answer = await sendFile(groupId, file, (progress) =>
      uploads.set(uploads.get().map((u) => (u.key === item.key ? { ...u, progress } : u))),
    );
    drop(item.key);
    const asset = answer.body?.assets?.[0];
    if (answer.status === 201 && asset) {
      updateDraft({ assets: [...draft.get().assets, asset] });
      say('success', `${file.name} uploaded`);
    } else {
      if (answer.status === 401 || answer.status === 403) window.location.assign('/unauthorized');
      say(
        'danger',
        `Unable to upload file: ${
          answer.body?.error?.message ?? (answer.status === 0 ? 'the connection failed' : `HTTP ${answer.status}`)
        }`,
      );
    }
  }
}

export async function deleteFile(assetId: number): Promise<void> {
  const d = draft.get();
  if (d.id === null) return;
  try {
    await call('DELETE /v1/tracked-attachments/groups/{id}/assets/{assetId}', {
      params: { id: String(d.id), assetId: String(assetId) },
    });
    updateDraft({ assets: draft.get().assets.filter((a) => a.id !== assetId) });
  } catch {
    say('danger', 'Unable to delete file');
  }
}
