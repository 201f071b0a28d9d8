import { useEffect } from 'react';
import type { LinkWire } from '../lib/group-report.ts';
import type { PageMeta } from '../contract/reports.ts';
import { goToLinkPage, linkList, loadLinks, openReport, startLinks } from '../stores/group-report.ts';
import { useSeededStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';
import PagedTable from '../components/PagedTable.tsx';

/**
 * The Clicks report's Links tab (docs/console-reports.md §2, §3 "Link row"): Link, Subject, Total Clicks,
 * Unique Clicks — one row per link and subject, unique clicks counting the transactions that clicked it.
 * `first`: the first page, rendered on the server; the island loads it itself when it is missing.
 */
export default function ClicksLinksTable({
  groupUuid,
  first = null,
}: {
  groupUuid: string;
  first?: { data: LinkWire[]; meta: PageMeta } | null;
}) {
  const $list = useSeededStore(linkList, first && { status: 'loaded', data: first.data, meta: first.meta });
  useEffect(() => {
    openReport(groupUuid, 'clicks');
    startLinks(first !== null);
  }, []);
  return (
    <div className="report-table link-table" aria-busy={$list.status === 'loading'} data-testid="link-table">
      <PagedTable
        list={$list}
        head={
          <>
            <th>Link</th>
            <th>Subject</th>
            <th className="count-column">Total Clicks</th>
            <th className="count-column">Unique Clicks</th>
          </>
        }
        columns={4}
        what="links"
        onRetry={() => void loadLinks()}
        onPage={goToLinkPage}
        testId="links"
      >
        {$list.data.map((link) => (
          <tr key={`${link.tll_url}\n${link.tm_subject}`} data-testid="link-row">
            <td className="link-cell" data-testid="link-url">
              <a href={link.tll_url} target="_blank" rel="noopener noreferrer nofollow">
                {link.tll_url}
              </a>
            </td>
            <td className="subject-cell" data-testid="link-subject">
              {link.tm_subject}
            </td>
            <td className="count-cell" data-testid="link-clicks">
              {formatCount(link.click_count)}
            </td>
            <td className="count-cell" data-testid="link-unique-clicks">
              {formatCount(link.unique_click_count)}
            </td>
          </tr>
        ))}
      </PagedTable>
    </div>
  );
}
