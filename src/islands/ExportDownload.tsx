import { useEffect, useState } from 'react';
import type { AnswerOf } from '../contract/client.ts';
import { callWithStatus, errorMessage, errorStatus } from '../lib/api.ts';
import { EXPORT_ALERT_MS } from '../lib/timings.ts';
import { showAlert } from '../stores/alerts.ts';

/**
 * POST /v1/transaction-groups/export-view's answer (docs/console-reports.md §3 "Export view response"): its
 * token is null while the worker is still writing the file (202).
 */
type ExportView = NonNullable<AnswerOf<'POST /v1/transaction-groups/export-view'>>;

type ViewState =
  | { status: 'loading' }
  | { status: 'ready'; view: ExportView & { token: string } }
  | { status: 'preparing'; view: ExportView }
  | { status: 'none' | 'unauthorized' | 'error' };

/**
 * The download address of an export (docs/console-reports.md §7): a short-lived token bound to the user and the export.
 */
export function downloadPath(token: string, uuid: string): string {
  return `/v1/transaction-groups/export-download/${encodeURIComponent(token)}/${encodeURIComponent(uuid)}`;
}

async function fetchView(uuid: string): Promise<{ status: number; view: ExportView | null }> {
  const answer = await callWithStatus('POST /v1/transaction-groups/export-view', { body: { uuid } });
  return { status: answer.status, view: answer.status === 204 ? null : (answer.data ?? null) };
}

/**
 * The export page's body (docs/console-reports.md §2 Export page, §8): the file name and a Download button
 * when export-view answers 200 (or 0); 204 'No Export Found.'; 412 'Unauthorized'; anything else
 * 'Unknown Error.' — each failure with its danger alert for 6 s ('Export not found.', the server's
 * text, or 'Unknown error.' when there was no answer at all).
 */
export default function ExportDownload({ uuid }: { uuid: string }) {
  const [state, setState] = useState<ViewState>({ status: 'loading' });
  const [downloading, setDownloading] = useState(false);

  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let gone = false;
    fetchView(uuid)
      .then(({ status, view }) => {
        if (gone) return;
        if ((status === 200 || status === 0) && view?.token)
          setState({ status: 'ready', view: { ...view, token: view.token } });
        // our API's addition: 202 while the worker still writes the file (the mail comes when it is done)
        else if (status === 202 && view) setState({ status: 'preparing', view });
        else {
          setState({ status: 'none' });
          showAlert('danger', 'Export not found.', EXPORT_ALERT_MS);
        }
      })
      .catch((err: unknown) => {
        if (gone) return;
        const status = errorStatus(err);
        setState({ status: status === 412 ? 'unauthorized' : 'error' });
        showAlert(
          'danger',
          status === undefined ? 'Unknown error.' : errorMessage(err, 'Unknown error.'),
          EXPORT_ALERT_MS,
        );
      });
    return () => {
      gone = true;
    };
  }, [uuid, attempt]);

  /** The token is short-lived: a fresh one for each download, so a page left open still works. */
  async function download(view: ExportView & { token: string }) {
    setDownloading(true);
    try {
      const fresh = await fetchView(uuid).catch(() => null);
      window.location.assign(downloadPath(fresh?.view?.token ?? view.token, uuid));
    } finally {
      setDownloading(false);
    }
  }

  switch (state.status) {
    case 'loading':
      return (
        <p className="has-text-grey" data-testid="export-loading">
          Loading…
        </p>
      );
    case 'ready':
      return (
        <div className="export-file" data-testid="export-ready">
          <p className="export-file-name" data-testid="export-file-name">
            {state.view.fileName}
          </p>
          <a
            className={`button is-primary${downloading ? ' is-loading' : ''}`}
            href={downloadPath(state.view.token, uuid)}
            onClick={(e) => {
              e.preventDefault();
              void download(state.view);
            }}
            data-testid="export-download"
          >
            Download
          </a>
        </div>
      );
    case 'preparing':
      return (
        <div className="export-file" data-testid="export-preparing">
          <div>
            <p className="export-file-name" data-testid="export-file-name">
              {state.view.fileName}
            </p>
            <p className="has-text-grey">
              The report is still being prepared. We will send you an email when it is ready to download.
            </p>
          </div>
          <button
            type="button"
            className="button"
            onClick={() => setAttempt((n) => n + 1)}
            data-testid="export-check-again"
          >
            Check again
          </button>
        </div>
      );
    case 'none':
      return (
        <p className="export-state" data-testid="export-state">
          No Export Found.
        </p>
      );
    case 'unauthorized':
      return (
        <p className="export-state" data-testid="export-state">
          Unauthorized
        </p>
      );
    default:
      return (
        <p className="export-state" data-testid="export-state">
          Unknown Error.
        </p>
      );
  }
}
