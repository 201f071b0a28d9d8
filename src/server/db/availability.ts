// What the service does when its database is away or its disks are full: errors that
// mean "the database cannot be reached right now" or "there is no room to write" are recognised
// here once (no imports: the console's middleware uses it too), so the API answers 503 database_unavailable / 507
// storage_full, SMTP a 4xx the client retries, and nothing is acknowledged that was not committed.

// network errors of the driver's socket, and pg's own words for a connection that went away
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const LOST_CONNECTION = new RegExp(
  [
    'connection terminated',
    'terminating connection',
    'connection timeout',
    'timeout exceeded when trying to connect',
    'client has encountered a connection error',
    'the database system is (starting up|shutting down|in recovery mode)',
    'cannot use a pool after calling end',
    'client was closed and is not queryable',
    'connection is closed',
  ].join('|'),
  'i',
);

/**
 * True when `err` says the database is unreachable (stopped, restarting, connections dropped),
 * not that it refused the statement: SQLSTATE class 08 (connection exception), 57P01–57P03
 * (administrator or crash shutdown, cannot connect now), 53300 (too many connections).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300')
      return true;
    if (NETWORK_CODES.has(code) && !('routine' in err)) return true;
  }
  if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isDatabaseUnavailable(cause);
}

/**
 * True when `err` says a disk is full: ENOSPC/EDQUOT from the file system, or PostgreSQL's 53100
 * (disk_full) when the database's own disk is (seen as a failing insert).
 */
export function isStorageFull(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === '53100') return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isStorageFull(cause);
}
