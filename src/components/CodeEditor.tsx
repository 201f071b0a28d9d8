// The HTML code editor. The page shows a plain textarea first, usable at once; CodeMirror 6 (with
// HTML highlighting and a lint gutter) is imported only after the first paint, as a chunk of its own
// (so the editor page's script at load stays within 100 KiB gz), and takes over the textarea's text,
// caret and focus. A compile error marks its line in the gutter; before CodeMirror has loaded the
// error's message (beside the editor) names the line.
import { useEffect, useRef, useState } from 'react';

/** Where the template does not compile: 1-based line and column, and the server's message. */
export interface CodeError {
  line: number;
  column: number;
  message: string;
}

interface Props {
  value: string;
  onChange(value: string): void;
  label: string;
  /** The id of the text that describes the field (its compile error), if any. */
  describedBy?: string;
  error?: CodeError | null;
}

type CodeMirror = {
  view: import('@codemirror/view').EditorView;
  lint: typeof import('@codemirror/lint');
};

/** Named in the Performance timeline when the lazy chunk is asked for: bench:pages counts what loads after it apart. */
export const LAZY_MARK = 'transact:lazy-import';

/** Resolves after the browser has painted the current frame (a frame, then a task after it). */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** The diagnostics for `error` in the editor's document: the error's line, from its column to its end. */
function diagnosticsFor(view: CodeMirror['view'], error: CodeError | null | undefined) {
  if (!error) return [];
  const doc = view.state.doc;
  const line = doc.line(Math.min(Math.max(error.line, 1), doc.lines));
  const from = Math.min(line.from + Math.max(error.column - 1, 0), line.to);
  return [{ from, to: Math.max(from, line.to), severity: 'error' as const, message: error.message }];
}

export default function CodeEditor({ value, onChange, label, describedBy, error }: Props) {
  const parent = useRef<HTMLDivElement>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const editor = useRef<CodeMirror | null>(null);
  const change = useRef(onChange);
  change.current = onChange;
  // what the textarea holds when CodeMirror arrives (the store's value; the textarea is controlled)
  const latest = useRef(value);
  latest.current = value;
  const latestError = useRef(error);
  latestError.current = error;
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let cancelled = false;
    void afterPaint()
      .then(() => {
        if (cancelled) return null;
        performance.mark(LAZY_MARK);
        return Promise.all([import('codemirror'), import('@codemirror/lang-html'), import('@codemirror/lint')]);
      })
      .then((modules) => {
        if (!modules || cancelled || !parent.current) return;
        const [{ EditorView, basicSetup }, { html }, lint] = modules;
        const plain = textarea.current;
        const focused = plain !== null && document.activeElement === plain;
        const caret = plain ? Math.min(plain.selectionStart, latest.current.length) : 0;
        const view = new EditorView({
          parent: parent.current,
          doc: latest.current,
          selection: { anchor: caret },
          extensions: [
            basicSetup,
            // the editor writes only what is typed: no closing tag of its own (typed again, it would double)
            html({ autoCloseTags: false }),
            lint.lintGutter(),
            EditorView.lineWrapping,
            EditorView.contentAttributes.of({
              'aria-label': label,
              ...(describedBy ? { 'aria-describedby': describedBy } : {}),
            }),
            EditorView.updateListener.of((update) => {
              if (update.docChanged) change.current(update.state.doc.toString());
            }),
          ],
        });
        // the scroller is a scrollable region: keyboard users reach it (WCAG 2.1.1, axe scrollable-region-focusable)
        view.scrollDOM.tabIndex = 0;
        view.scrollDOM.setAttribute('aria-label', `${label}, scrollable`);
        view.dispatch(lint.setDiagnostics(view.state, diagnosticsFor(view, latestError.current)));
        editor.current = { view, lint };
        setReady(true);
        if (focused) view.focus();
      });
    return () => {
      cancelled = true;
      editor.current?.view.destroy();
      editor.current = null;
    };
  }, [label, describedBy]);

  // a new compile error (or none) marks its line
  useEffect(() => {
    const cm = editor.current;
    if (cm) cm.view.dispatch(cm.lint.setDiagnostics(cm.view.state, diagnosticsFor(cm.view, error)));
  }, [error, ready]);

  return (
    <div
      className={`code-editor${error ? ' has-error' : ''}`}
      data-testid="code-editor"
      data-ready={ready ? 'yes' : 'no'}
    >
      {!ready && (
        <textarea
          ref={textarea}
          className="textarea is-family-monospace code-editor-plain"
          rows={16}
          spellCheck={false}
          aria-label={label}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          data-testid="code-editor-plain"
        />
      )}
      <div ref={parent} />
    </div>
  );
}
