// Select Template (docs/console-reports.md §2): tabs 'My Templates' and 'Templates Gallery', each with a
// search box and cards whose 'Select' button opens the editor on a copy (/templates/create/{id});
// the first card is always 'Blank Template' (/templates/create/new).
import { useEffect, useRef, useState } from 'react';
import { call } from '../lib/api.ts';
import { debounced } from '../lib/debounced.ts';
import { SEARCH_DEBOUNCE_MS } from '../lib/timings.ts';
import type { TemplateWire } from '../lib/template-editor.ts';
import { showAlert } from '../stores/alerts.ts';

type Tab = 'user' | 'system';
const TABS: { id: Tab; label: string }[] = [
  { id: 'user', label: 'My Templates' },
  { id: 'system', label: 'Templates Gallery' },
];

function Card({ title, text, href, testId }: { title: string; text: string; href: string; testId: string }) {
  return (
    <div className="card template-pick" data-testid={testId}>
      <div className="card-content">
        <h2 className="title is-6">{title}</h2>
        <p className="has-text-grey-dark">{text}</p>
      </div>
      <footer className="card-footer">
        <a className="card-footer-item" href={href} aria-label={`Select ${title}`}>
          Select
        </a>
      </footer>
    </div>
  );
}

export default function TemplatePicker({ initialTab = 'user' }: { initialTab?: Tab }) {
  const [tab, setTab] = useState<Tab>(initialTab);
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [state, setState] = useState<{ status: 'loading' | 'loaded' | 'failed'; data: TemplateWire[] }>({
    status: 'loading',
    data: [],
  });
  const search = useRef(debounced(SEARCH_DEBOUNCE_MS, (value: string) => setName(value)));
  // the fragment names the tab (/templates/create#system opens the gallery); the server cannot see it,
  // so it renders the default tab and the fragment is read once hydrated
  useEffect(() => {
    const named = TABS.find((t) => `#${t.id}` === window.location.hash);
    if (named) setTab(named.id);
  }, []);

  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, status: 'loading' }));
    const body =
      tab === 'system'
        ? { templateName: name, templateType: 'system', templateStatus: 'published', sort: 'name' }
        : { templateName: name, templateType: 'user', sort: 'name' };
    call('POST /v1/templates/search', { body })
      .then((answer) => current && setState({ status: 'loaded', data: answer.data }))
      .catch(() => {
        if (!current) return;
        setState({ status: 'failed', data: [] });
        showAlert('danger', 'Error in getting templates');
      });
    return () => {
      current = false;
    };
  }, [tab, name]);

  return (
    <div className="template-picker">
      <div className="tabs">
        <ul role="tablist">
          {TABS.map((t) => (
            <li key={t.id} role="presentation" className={tab === t.id ? 'is-active' : undefined}>
              <a
                role="tab"
                href={`#${t.id}`}
                aria-selected={tab === t.id}
                onClick={(e) => {
                  e.preventDefault();
                  setTab(t.id);
                  history.replaceState(null, '', `#${t.id}`);
                }}
                data-testid={`tab-${t.id}`}
              >
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </div>
      <div className="control template-search mb-4">
        <input
          className="input"
          type="search"
          placeholder="Search"
          aria-label="Search templates by name"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            search.current(e.target.value.trim());
          }}
          data-testid="picker-search"
        />
      </div>
      <div
        className="template-cards"
        role="tabpanel"
        aria-busy={state.status === 'loading'}
        data-testid="template-cards"
      >
        <Card
          title="Blank Template"
          text="Start from an empty page."
          href="/templates/create/new"
          testId="card-blank"
        />
        {state.data.map((t) => (
          <Card
            key={t.id}
            title={t.name}
            text={t.description || t.subject || ''}
            href={`/templates/create/${t.id}`}
            testId="template-card"
          />
        ))}
      </div>
      {state.status === 'loaded' && state.data.length === 0 && (
        <p className="has-text-grey-dark mt-4" data-testid="picker-empty">
          No templates found
        </p>
      )}
    </div>
  );
}
