// A read-only value the user copies somewhere else (credentials on Settings and getting started,
// docs/console.md §2): a Copy button, and for secrets dots with a Show/Hide button.
import { useEffect, useId, useState } from 'react';

export interface CopyFieldProps {
  label: string;
  value: string;
  /** Shows dots until the user asks to see the value. */
  masked?: boolean;
  /** Prefix of the data-testid attributes: `<testId>`, `-input`, `-copy`, `-reveal`. */
  testId?: string;
}

const FEEDBACK_MS = 1500;

/** Copies text: the Clipboard API where the page is a secure context, else a hidden textarea. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // http:// on a LAN name is not a secure context; execCommand still copies a selection there
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

export default function CopyField({ label, value, masked = false, testId }: CopyFieldProps) {
  const id = useId();
  const prefix = testId ?? `copy-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const [revealed, setRevealed] = useState(false);
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (copied === 'idle') return;
    const timer = setTimeout(() => setCopied('idle'), FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = () =>
    copyText(value).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    );
  const hidden = masked && !revealed;

  return (
    <div className="field copy-field" data-testid={prefix}>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <div className="field has-addons">
        <div className="control is-expanded">
          <input
            id={id}
            className="input is-family-monospace"
            type={hidden ? 'password' : 'text'}
            value={value}
            readOnly
            autoComplete="off"
            spellCheck={false}
            onFocus={(e) => e.currentTarget.select()}
            data-testid={`${prefix}-input`}
          />
        </div>
        {masked && (
          <div className="control">
            <button
              type="button"
              className="button reveal-button"
              aria-label={`${revealed ? 'Hide' : 'Show'} ${label}`}
              aria-pressed={revealed}
              aria-controls={id}
              onClick={() => setRevealed(!revealed)}
              data-testid={`${prefix}-reveal`}
            >
              {revealed ? 'Hide' : 'Show'}
            </button>
          </div>
        )}
        <div className="control">
          <button
            type="button"
            className={
              `button copy-button ` +
              `${copied === 'copied' ? 'is-success' : copied === 'failed' ? 'is-danger' : 'is-primary is-light'}`
            }
            aria-label={`Copy ${label}`}
            onClick={() => void copy()}
            data-testid={`${prefix}-copy`}
          >
            {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
          </button>
        </div>
      </div>
      <span className="is-sr-only" aria-live="polite">
        {copied === 'copied' ? `${label} copied` : copied === 'failed' ? `${label} could not be copied` : ''}
      </span>
    </div>
  );
}
