// The addresses the running service announces (PUBLIC_URL, resolved with its default), written
// into DATA_DIR when the web role starts, so the admin CLI can tell whether the addresses it
// prints are the ones the service uses: the CLI often runs with a different environment,
// and an unset PUBLIC_URL on both sides is no difference at all.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ServiceRecord {
  publicUrl: string;
  /** When the service that wrote it started (ISO 8601). */
  startedAt: string;
}

const FILE = 'service.json';

/** Written through a temporary name and renamed, so a reader never sees half a record. */
export function writeServiceRecord(dataPath: string, record: ServiceRecord): void {
  mkdirSync(dataPath, { recursive: true });
  const file = path.join(dataPath, FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The record of the last service started with this data directory, or null (none, or unreadable). */
export function readServiceRecord(dataPath: string): ServiceRecord | null {
  try {
    const value: unknown = JSON.parse(readFileSync(path.join(dataPath, FILE), 'utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const { publicUrl, startedAt } = value as Record<string, unknown>;
    return typeof publicUrl === 'string' && typeof startedAt === 'string' ? { publicUrl, startedAt } : null;
  } catch {
    return null;
  }
}

/**
 * What the admin CLI says about the addresses it prints (null: nothing to say). Compared with the
 * record of the service started with the same data directory; without one, a CLI on PostgreSQL
 * with no PUBLIC_URL is warned as before, since its service likely runs elsewhere.
 */
export function addressWarning(
  cli: { publicUrl: string; publicUrlSet: boolean; databaseUrl: boolean },
  service: ServiceRecord | null,
): string | null {
  if (service) {
    if (service.publicUrl === cli.publicUrl) return null;
    return (
      `admin: addresses here use ${cli.publicUrl}, but the service (started ${service.startedAt} with this data ` +
      `directory) uses ${service.publicUrl}; ` +
      `links in its mail and pages use ${service.publicUrl}. Run the CLI with the service's environment ` +
      `(PUBLIC_URL=${service.publicUrl})`
    );
  }
  if (!cli.publicUrlSet && cli.databaseUrl) {
    return (
      `admin: PUBLIC_URL is not set here, so addresses use ${cli.publicUrl}; give the CLI the service's ` +
      `environment`
    );
  }
  return null;
}
