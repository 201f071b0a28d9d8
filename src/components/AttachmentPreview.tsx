// What a recipient will see (docs/console-reports.md §2: the editor's live preview and the list's preview
// pane): a Preview Page link, the title Online Attachments, 'Expiry date: D MMMM YYYY' if set, and
// the files with Download buttons, in the customer's branding. Download buttons here do nothing.
// A link that expired or reached its download limit previews as the public page then shows it
//: the notice instead of Download buttons, still in the branding.
import { DEAD_LINK_NOTICES, type LinkState, shownLinkName } from '../lib/attachment-state.ts';
import { formatLongDate } from '../lib/dates.ts';
import { formatFileSize } from '../lib/file-size.ts';
import type { Asset, Branding } from '../stores/attachments.ts';

export interface AttachmentPreviewProps {
  branding: Branding;
  previewLink: string | null;
  expiry: number | null;
  state?: LinkState;
  files: Pick<Asset, 'name' | 'size'>[];
  /** The link's name, shown under the heading unless it is the default (shownLinkName). */
  name?: string | null;
  /** Who shares the link: the account's name, under the heading. */
  sender?: string | null;
}

export default function AttachmentPreview({
  branding,
  previewLink,
  expiry,
  state = 'live',
  files,
  name = null,
  sender = null,
}: AttachmentPreviewProps) {
  const notice = state === 'live' ? null : DEAD_LINK_NOTICES[state];
  return (
    <div className="attachment-preview" data-testid="attachment-preview">
      <p className="preview-link">
        {previewLink ? (
          <a href={previewLink} target="_blank" rel="noopener" data-testid="preview-page-link">
            Preview Page
          </a>
        ) : (
          <span className="has-text-grey">Preview Page (after the first save)</span>
        )}
      </p>
      <div className="preview-page" style={{ background: branding.page.colour, color: branding.page.text_colour }}>
        {branding.logo && <img className="preview-logo" src={branding.logo.url} alt="Logo" />}
        <p className="preview-title" data-testid="preview-title">
          {notice ? notice.heading : 'Online Attachments'}
        </p>
        {shownLinkName(name) && (
          <p className="preview-name" data-testid="preview-name">
            {shownLinkName(name)}
          </p>
        )}
        {sender && (
          <p className="preview-sender" data-testid="preview-sender">
            Shared by {sender}
          </p>
        )}
        {expiry ? (
          <p className="preview-expiry" data-testid="preview-expiry">
            {state === 'expired' ? `Expired on ${formatLongDate(expiry)}` : `Expiry date: ${formatLongDate(expiry)}`}
          </p>
        ) : null}
        {notice ? (
          <p
            className="preview-notice"
            style={{ background: branding.link.colour, color: branding.link.text_colour }}
            data-testid="preview-notice"
          >
            {notice.text}
          </p>
        ) : (
          <ul className="preview-files">
            {files.map((f, i) => (
              <li key={`${f.name}-${i}`} style={{ background: branding.link.colour, color: branding.link.text_colour }}>
                <span className="preview-file-name">
                  {f.name}
                  <small>{formatFileSize(f.size)}</small>
                </span>
                <span
                  className="preview-download"
                  style={{ background: branding.button.colour, color: branding.button.text_colour }}
                >
                  Download
                </span>
              </li>
            ))}
            {files.length === 0 && (
              <li
                className="preview-empty"
                style={{ background: branding.link.colour, color: branding.link.text_colour }}
              >
                No files yet
              </li>
            )}
          </ul>
        )}
      </div>
    </div>
  );
}
