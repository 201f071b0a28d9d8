// 'Customise Your Branding' (docs/console-reports.md §2 Branding modal, §5, §8): the logo (png, jpg, jpeg,
// gif under 512 KB, checked here by name, size and first bytes, and again by the server), colour
// pickers Page (Text, Background), Button (Text, Background), Link (Text), Cancel and Update.
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect, useState } from 'react';
import BusyButton from '../components/BusyButton.tsx';
import Modal from '../components/Modal.tsx';
import { logoProblem } from '../lib/logo-check.ts';
import { type Branding, branding, deleteLogo, loadBranding, saveBranding } from '../stores/attachments.ts';

type Settings = Omit<Branding, 'logo'>;
const PICKERS: { group: keyof Settings; key: 'colour' | 'text_colour'; label: string }[] = [
  { group: 'page', key: 'text_colour', label: 'Text' },
  { group: 'page', key: 'colour', label: 'Background' },
  { group: 'button', key: 'text_colour', label: 'Text' },
  { group: 'button', key: 'colour', label: 'Background' },
  { group: 'link', key: 'text_colour', label: 'Text' },
];

export default function BrandingModal() {
  const $branding = useIslandStore(branding);
  const [open, setOpen] = useState(false);
  const [settings, setSettings] = useState<Settings>($branding);
  const [logo, setLogo] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => void loadBranding(), []);

  const show = () => {
    setSettings({ page: $branding.page, button: $branding.button, link: $branding.link });
    setLogo(null);
    setProblem(null);
    setOpen(true);
  };
  const pick = async (file: File | undefined) => {
    setLogo(null);
    setProblem(null);
    if (!file) return;
    const head = new Uint8Array(await file.slice(0, 256).arrayBuffer());
    const found = logoProblem(file.name, file.size, head);
    if (found) setProblem(found);
    else setLogo(file);
  };
  const update = async () => {
    setPending(true);
    const ok = await saveBranding(settings, logo);
    setPending(false);
    if (ok) setOpen(false);
  };

  return (
    <>
      <button type="button" className="button" onClick={show} data-testid="branding-open">
        Customise Your Branding
      </button>
      {open && (
        <Modal
          title="Customise Your Branding"
          titleId="branding-title"
          onClose={() => setOpen(false)}
          testId="branding-modal"
          footer={
            <>
              <button type="button" className="button" onClick={() => setOpen(false)} disabled={pending}>
                Cancel
              </button>
              <BusyButton
                className="is-primary"
                busy={pending}
                disabled={problem !== null}
                onClick={() => void update()}
                testId="branding-update"
              >
                Update
              </BusyButton>
            </>
          }
        >
          <fieldset disabled={pending}>
            <div className="field">
              <label className="label" htmlFor="branding-logo">
                Logo
              </label>
              {$branding.logo && (
                <div className="branding-current">
                  <img
                    src={`${$branding.logo.url}?v=${encodeURIComponent($branding.logo.fileName)}`}
                    alt="Current logo"
                  />
                  <span>{$branding.logo.fileName}</span>
                  <button
                    type="button"
                    className="button is-small is-danger is-light"
                    onClick={() => void deleteLogo()}
                    data-testid="branding-logo-delete"
                  >
                    Delete logo
                  </button>
                </div>
              )}
              <input
                id="branding-logo"
                className="input"
                type="file"
                accept=".png,.jpg,.jpeg,.gif,image/png,image/jpeg,image/gif"
                onChange={(e) => void pick(e.target.files?.[0])}
                data-testid="branding-logo"
              />
              <p className="help">Accepted: jpeg, jpg, gif, png. Maximum 500KB.</p>
              {problem && (
                <p className="help is-danger" role="alert" data-testid="branding-logo-error">
                  {problem}
                </p>
              )}
            </div>
            {(['page', 'button', 'link'] as const).map((group) => (
              <div className="field branding-row" key={group}>
                <p className="label">{group === 'page' ? 'Page' : group === 'button' ? 'Button' : 'Link'}</p>
                <div className="branding-pickers">
                  {PICKERS.filter((p) => p.group === group).map((p) => (
                    <label className="branding-picker" key={p.key}>
                      <input
                        type="color"
                        value={settings[group][p.key]}
                        onChange={(e) =>
                          setSettings({ ...settings, [group]: { ...settings[group], [p.key]: e.target.value } })
                        }
                        data-testid={`branding-${group}-${p.key}`}
                      />
                      <span>{p.label}</span>
                    </label>
                  ))}
                </div>
              </div>
            ))}
            <p className="notification is-info is-light branding-note">
              This branding applies to all Online Attachment links. It can also be changed in Global Settings.
            </p>
          </fieldset>
        </Modal>
      )}
    </>
  );
}
