// One domain's details: verification state with "send a new verification email", receiving on or off
// with what to do with mail failing DMARC under p=reject (docs/receiving.md), and the DNS records
// (SPF, DKIM, DMARC, return path, MX) with copy buttons and their last check, re-checked on demand.
import { useState } from 'react';
import CopyField from '../components/CopyField.tsx';
import { call, errorMessage } from '../lib/api.ts';
import { formatDateTime, unixOfIso } from '../lib/dates.ts';
import { showAlert } from '../stores/alerts.ts';
import BusyButton from '../components/BusyButton.tsx';

interface DnsCheck {
  ok: boolean;
  found: string | null;
  expected: string;
  detail?: string;
}

export interface DomainDetail {
  domain_id: number;
  domain_domain: string;
  domain_sending_verified: 'yes' | 'no';
  domain_verification_email: string | null;
  domain_verification_sent_timestamp: string | null;
  dns_checked_timestamp: string | null;
  domain_receiving: boolean;
  domain_inbound_refuse_dmarc_reject: boolean;
  dns_records: {
    purpose: string;
    type: string;
    name: string;
    value: string;
    priority?: number;
    check: DnsCheck | null;
  }[];
}

/**
 * When the records were last checked: 'MMMM D, YYYY HH:mm UTC' (docs/console.md §9; the same text on the server and in
 * any browser).
 */
function LastChecked({ iso }: { iso: string }) {
  const at = unixOfIso(iso);
  return <time dateTime={iso}>{formatDateTime(at)} UTC</time>;
}

const PURPOSE: Record<string, string> = {
  spf: 'SPF',
  dkim: 'DKIM',
  dmarc: 'DMARC',
  return_path: 'Return path',
  receiving: 'Receiving',
};

export default function DomainDetails({ initial }: { initial: DomainDetail }) {
  const [domain, setDomain] = useState(initial);
  const [checking, setChecking] = useState(false);
  const [sending, setSending] = useState(false);
  const [switching, setSwitching] = useState(false);
  const [switchError, setSwitchError] = useState<string | null>(null);

  /** PUT /v1/domains/{id}/receiving with the one field changed; a refusal is said under the switches. */
  async function switchReceiving(body: { enabled: boolean } | { inbound_refuse_dmarc_reject: boolean }) {
    setSwitching(true);
    setSwitchError(null);
    try {
      const answer = await call('PUT /v1/domains/{id}/receiving', {
        params: { id: String(domain.domain_id) },
        body,
      });
      setDomain(answer.domain);
    } catch (err) {
      setSwitchError(errorMessage(err, 'The change could not be saved. Try again.'));
    } finally {
      setSwitching(false);
    }
  }

  async function check() {
    setChecking(true);
    try {
      const answer = await call('POST /v1/domains/{id}/check', { params: { id: String(domain.domain_id) }, body: {} });
      setDomain(answer.domain);
    } catch (err) {
      showAlert('danger', errorMessage(err, 'The DNS check failed. Try again.'));
    } finally {
      setChecking(false);
    }
  }

  async function resend() {
    setSending(true);
    try {
      const answer = await call('POST /v1/domains/{id}/verification', {
        params: { id: String(domain.domain_id) },
        body: {},
      });
      setDomain(answer.domain);
      showAlert('success', answer.messages.join(', '));
    } catch (err) {
      showAlert('danger', errorMessage(err, 'The verification email could not be sent. Try again.'));
    } finally {
      setSending(false);
    }
  }

  const verified = domain.domain_sending_verified === 'yes';
  return (
    <>
      <div className="box" data-testid="verification-state" data-verified={domain.domain_sending_verified}>
        {verified ? (
          <p>
            <span className="domain-state is-verified" aria-hidden="true">
              ✔
            </span>{' '}
            Verified for sending.
          </p>
        ) : (
          <>
            <p className="mb-3">
              <span className="domain-state is-unverified" aria-hidden="true">
                ✘
              </span>{' '}
              Not verified yet.
              {domain.domain_verification_email && (
                <>
                  {' '}
                  We sent a link to <strong>{domain.domain_verification_email}</strong>; open it and press Confirm.
                </>
              )}
            </p>
            <BusyButton
              className="is-small"
              busy={sending}
              disabled={!domain.domain_verification_email}
              onClick={() => void resend()}
              testId="resend-verification"
            >
              Send a new verification email
            </BusyButton>
          </>
        )}
      </div>
      <div className="box" data-testid="receiving">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={domain.domain_receiving}
            disabled={switching}
            onChange={(e) => void switchReceiving({ enabled: e.currentTarget.checked })}
            data-testid="receiving-switch"
          />{' '}
          Receive mail at this domain
        </label>
        <p className="help">
          {domain.domain_receiving
            ? 'Mail to any address of this domain is received once it is verified and its MX record below is ' +
              'published; read it on the Inbound page.'
            : 'Replies and mail to any address of this domain can be received here and handed to your app.'}
        </p>
        <label className="checkbox mt-3" data-disabled={!domain.domain_receiving}>
          <input
            type="checkbox"
            checked={domain.domain_inbound_refuse_dmarc_reject}
            disabled={switching || !domain.domain_receiving}
            aria-describedby="refuse-dmarc-help"
            onChange={(e) => void switchReceiving({ inbound_refuse_dmarc_reject: e.currentTarget.checked })}
            data-testid="refuse-dmarc-switch"
          />{' '}
          Refuse mail that fails DMARC when its sender's domain asks receivers to reject it
        </label>
        <p className="help" id="refuse-dmarc-help">
          {domain.domain_inbound_refuse_dmarc_reject
            ? 'Such a message is refused while it is being sent (550 5.7.1); it is not stored.'
            : 'Such a message is kept and flagged on the Inbound page, so mail broken by a forwarder is not lost.'}
          {!domain.domain_receiving && ' Switch receiving on to choose.'}
        </p>
        {switchError && (
          <p className="help is-danger" role="alert" data-testid="receiving-error">
            {switchError}
          </p>
        )}
      </div>
      <div className="card">
        <header className="card-header">
          <p className="card-header-title">DNS records</p>
          <div className="card-header-icon">
            <BusyButton className="is-small is-primary" busy={checking} onClick={() => void check()} testId="check-dns">
              Check now
            </BusyButton>
          </div>
        </header>
        <div className="card-content">
          <p className="mb-4 has-text-grey" data-testid="dns-checked">
            Publish these records at your DNS provider so receivers can authenticate your mail.{' '}
            {domain.dns_checked_timestamp ? (
              <>
                Last checked <LastChecked iso={domain.dns_checked_timestamp} />.
              </>
            ) : (
              'Not checked yet.'
            )}
          </p>
          {domain.dns_records.map((r) => (
            <div
              className="dns-record"
              key={r.purpose}
              data-testid="dns-record"
              data-purpose={r.purpose}
              data-ok={r.check ? String(r.check.ok) : 'unchecked'}
            >
              <p className="dns-record-title">
                <strong>{PURPOSE[r.purpose] ?? r.purpose}</strong> <span className="tag">{r.type}</span>{' '}
                {r.priority !== undefined && <span className="tag is-light">priority {r.priority}</span>}{' '}
                {r.check === null ? (
                  <span className="tag is-light">Not checked yet</span>
                ) : r.check.ok ? (
                  <span className="tag is-success">Found</span>
                ) : (
                  <span className="tag is-danger" title={r.check.detail}>
                    {r.check.detail ?? 'Not found'}
                  </span>
                )}
              </p>
              <CopyField label="Name" value={r.name} testId={`dns-${r.purpose}-name`} />
              <CopyField label="Value" value={r.value} testId={`dns-${r.purpose}-value`} />
            </div>
          ))}
        </div>
      </div>
    </>
  );
}
