import { useEffect } from 'react';
import type { PageMeta } from '../contract/reports.ts';
import PagedTable from '../components/PagedTable.tsx';
import EmailText from '../components/EmailText.tsx';
import {
  type InboundRowWire,
  goToInboundPage,
  inboundList,
  inboundQuery,
  loadInbound,
  startInbound,
} from '../stores/inbound.ts';
import { formatDate, formatDateTime, formatTime, unixOfIso } from '../lib/dates.ts';
import { useIslandStore, useSeededStore } from '../lib/island-hooks.ts';
import { VERDICT_LABEL, VERDICT_TAG, mailboxParts, verdictOf } from '../lib/inbound-view.ts';

const COLUMNS = 5;

/** A domain the empty page links to: its page is where receiving is switched on. */
interface DomainLink {
  id: number;
  name: string;
}

interface Props {
  /** The first page, rendered on the server; the island loads it itself when it is missing. */
  first?: { data: InboundRowWire[]; meta: PageMeta } | null;
  /** The account's domains, named while nothing has been received. */
  domains: DomainLink[];
}

function Mailbox({ mailbox, testId }: { mailbox: string; testId: string }) {
  const { name, address } = mailboxParts(mailbox);
  return (
    <span data-testid={testId} title={mailbox}>
      {name && <span className="mailbox-name">{name}</span>}
      <span className={name ? 'mailbox-address' : undefined}>
        <EmailText email={address} />
      </span>
    </span>
  );
}

function Row({ row }: { row: InboundRowWire }) {
  const at = unixOfIso(row.received_at);
  const verdict = verdictOf(row.authentication);
  const href = `/inbound/${row.id}`;
  return (
    // the whole row opens the message; the subject is its link for the keyboard and assistive technology
    <tr
      className="inbound-row"
      data-testid="inbound-row"
      data-id={row.id}
      onClick={(e) => {
        if (!(e.target as Element).closest('a')) window.location.assign(href);
      }}
    >
      <td className="date-cell" title={`Received ${formatDateTime(at)} UTC`}>
        <time dateTime={row.received_at} data-testid="inbound-date">
          {formatDate(at)}
        </time>
        <span className="time-of-day">{formatTime(at)}</span>
      </td>
      <td className="email-cell from-cell">
        <Mailbox mailbox={row.from} testId="inbound-from" />
      </td>
      <td className="email-cell to-cell" data-testid="inbound-to">
        {(row.to.length ? row.to : row.received_for).map((to) => (
          <span key={to} className="mailbox-line">
            <EmailText email={mailboxParts(to).address} />
          </span>
        ))}
      </td>
      <td className="subject-cell">
        <a href={href} data-testid="inbound-subject">
          {row.subject || '(no subject)'}
        </a>
        {row.attachment_count > 0 && (
          <span className="inbound-note" data-testid="inbound-attachments">
            {row.attachment_count === 1 ? '1 attachment' : `${row.attachment_count} attachments`}
          </span>
        )}
        {row.in_reply_to_email_id && <span className="inbound-note">Reply to a message you sent</span>}
      </td>
      <td className="verdict-cell">
        <span
          className={`tag is-light ${VERDICT_TAG[verdict]}`}
          title={`SPF ${row.authentication.spf}, DKIM ${row.authentication.dkim}, DMARC ${row.authentication.dmarc}`}
          data-testid="inbound-verdict"
        >
          {VERDICT_LABEL[verdict]}
        </span>
      </td>
    </tr>
  );
}

/** Nothing received at all: how receiving is switched on, and where (docs/receiving.md). */
function NothingReceived({ domains }: { domains: DomainLink[] }) {
  return (
    <div className="inbound-empty" data-testid="inbound-nothing">
      <p className="has-text-weight-semibold">No mail has been received yet.</p>
      <p>
        Mail sent to one of your domains shows up here once receiving is switched on for the domain and its MX record
        points at this service. Both are on the domain's page.
      </p>
      {domains.length > 0 ? (
        <ul className="inbound-domains">
          {domains.map((d) => (
            <li key={d.id}>
              <a href={`/domains/${d.id}`} data-testid="inbound-domain-link">
                {d.name}
              </a>
            </li>
          ))}
        </ul>
      ) : (
        <p>
          Add and verify a domain first, on <a href="/">Let's get started</a>.
        </p>
      )}
    </div>
  );
}

/**
 * The Inbound list (docs/console.md §2 "Inbound"): received mail newest first, each row Received, From, To,
 * Subject (the link to the message) and the authentication verdict, with the pager; a row opens the message.
 * On a phone each row is a block: sender and verdict, the subject under them, then the time
 * (styles/inbound.scss).
 */
export default function InboundTable({ first = null, domains }: Props) {
  const $list = useSeededStore(inboundList, first && { status: 'loaded', data: first.data, meta: first.meta });
  const $query = useIslandStore(inboundQuery);
  useEffect(() => startInbound(first !== null), []);
  const loading = $list.status === 'loading';
  const unfiltered = $query.search === '' && $query.page === 1;
  if ($list.status === 'loaded' && $list.data.length === 0 && unfiltered) return <NothingReceived domains={domains} />;
  return (
    <div className="report-table inbound-table" aria-busy={loading} data-testid="inbound-table">
      <PagedTable
        list={$list}
        head={
          <>
            <th>Received</th>
            <th>From</th>
            <th>To</th>
            <th>Subject</th>
            <th>Authentication</th>
          </>
        }
        columns={COLUMNS}
        what="received mail"
        onRetry={() => void loadInbound()}
        onPage={goToInboundPage}
        testId="inbound"
      >
        {$list.data.map((row) => (
          <Row key={row.id} row={row} />
        ))}
      </PagedTable>
    </div>
  );
}
