// A report's paged table (docs/console.md §2, §8): Bulma's scrolling table with its header row and rows,
// 'Loading…' or why there are no rows with a Retry (TableStatusRows), and the pager below.
import type { ReactNode } from 'react';
import type { ListState } from '../stores/list-state.ts';
import Pagination from './Pagination.tsx';
import TableStatusRows from './TableStatusRows.tsx';

interface Props {
  list: ListState<unknown>;
  /** The header row's cells. */
  head: ReactNode;
  /** How many columns: the status row spans them. */
  columns: number;
  /** What the table lists, plural: 'transactions', 'groups'. */
  what: string;
  onRetry(): void;
  onPage(page: number): void;
  /** Prefix of the status row's and the pager's test ids. */
  testId: string;
  /** The rows. */
  children: ReactNode;
}

export default function PagedTable({ list, head, columns, what, onRetry, onPage, testId, children }: Props) {
  return (
    <>
      <div className="table-container">
        <table className="table is-fullwidth is-hoverable">
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody>
            {children}
            <TableStatusRows
              columns={columns}
              status={list.status}
              rows={list.data.length}
              what={what}
              onRetry={onRetry}
              testId={testId}
            />
          </tbody>
        </table>
      </div>
      {list.meta && <Pagination meta={list.meta} onPage={onPage} testId={testId} />}
    </>
  );
}
