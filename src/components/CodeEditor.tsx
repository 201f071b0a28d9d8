// The HTML code editor (CodeMirror 6 with HTML highlighting). CodeMirror is imported when the
// component mounts, so its code is a chunk of its own that only the template editor page loads.
import { useEffect, useRef, useState } from 'react';

interface Props {
  value: string;
  onChange(value: string): void;
  label: string;
}

export default function CodeEditor({ value, onChange, label }: Props) {
  const parent = useRef<HTMLDivElement>(null);
  const change = useRef(onChange);
  change.current = onChange;
  const initial = useRef(value);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let view: import('@codemirror/view').EditorView | null = null;
    let cancelled = false;
    void Promise.all([import('codemirror'), import('@codemirror/lang-html')]).then(([{ EditorView, basicSetup }, { html }]) => {
      if (cancelled || !parent.current) return;
      view = new EditorView({
        parent: parent.current,
        doc: initial.current,
        extensions: [
          basicSetup,
          html(),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) change.current(update.state.doc.toString());
          }),
        ],
      });
      // the scroller is a scrollable region: keyboard users reach it (WCAG 2.1.1, axe scrollable-region-focusable)
      view.scrollDOM.tabIndex = 0;
      view.scrollDOM.setAttribute('aria-label', `${label}, scrollable`);
      setReady(true);
    });
    return () => {
      cancelled = true;
      view?.destroy();
    };
  }, [label]);

  return (
    <div className="code-editor" data-testid="code-editor" data-ready={ready ? 'yes' : 'no'}>
      <div ref={parent} />
    </div>
  );
}
