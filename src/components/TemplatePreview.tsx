// A rendered template shown safely (Postal's GHSA-f6g9-8555-cw28 is this hole): an
// iframe with `sandbox` and no allow-scripts, the document given as `srcdoc`, and a CSP in the
// document that forbids scripts and every remote load but images.
import { previewDocument } from '../lib/template-editor.ts';

export default function TemplatePreview({
  html,
  title,
  width,
}: {
  html: string | null;
  title: string;
  width?: number;
}) {
  if (html === null)
    return (
      <div className="template-preview is-loading-preview" aria-busy="true" data-testid="template-preview-loading">
        Rendering the preview…
      </div>
    );
  return (
    <iframe
      className="template-preview"
      title={title}
      sandbox=""
      referrerPolicy="no-referrer"
      srcDoc={previewDocument(html)}
      style={width ? { width: `${width}px` } : undefined}
      data-testid="template-preview"
    />
  );
}
