// Traffic shaping per destination site (as KumoMTA's and PowerMTA's per-destination queues do):
// defaults, and overrides by site name or by MX host pattern (`*.google.com`) or recipient domain,
// read from SHAPING_FILE (TOML or JSON; docs/delivery.md). Pure apart from reading the file.
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';

export interface SiteLimits {
  /** Connections open to the site at once, across every worker process. */
  maxConnections: number;
  /** Messages sent over one connection before it is closed. */
  maxMessagesPerConnection: number;
  /** Messages per second to the site across every worker process; undefined = no limit. */
  maxMessagesPerSecond?: number;
}

export const DEFAULT_LIMITS: SiteLimits = { maxConnections: 10, maxMessagesPerConnection: 100 };

const limitsSchema = z
  .object({
    max_connections: z.number().int().min(1).max(1000).optional(),
    max_messages_per_connection: z.number().int().min(1).max(100_000).optional(),
    max_messages_per_second: z.number().positive().max(100_000).optional(),
  })
  .strict();

const fileSchema = z
  .object({
    default: limitsSchema.optional(),
    // keys: a site name, an MX host pattern (`*.google.com`, `mx.example.com`) or a recipient domain
    sites: z.record(z.string(), limitsSchema).optional(),
  })
  .strict();

export interface Shaping {
  limitsFor(site: { hosts: string[]; domain?: string; name: string }): SiteLimits;
}

type Override = { pattern: string; limits: z.infer<typeof limitsSchema> };

const merge = (base: SiteLimits, o: z.infer<typeof limitsSchema>): SiteLimits => ({
  maxConnections: o.max_connections ?? base.maxConnections,
  maxMessagesPerConnection: o.max_messages_per_connection ?? base.maxMessagesPerConnection,
  maxMessagesPerSecond: o.max_messages_per_second ?? base.maxMessagesPerSecond,
});

/** `*.google.com` matches any name below google.com; anything else matches exactly. */
export function matchesPattern(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase();
  const n = name.toLowerCase().replace(/\.$/, '');
  if (p.startsWith('*.')) return n.endsWith(p.slice(1));
  return p === n;
}

/** Shaping from parsed file contents (TOML or JSON decoded); throws with the reason when invalid. */
export function shapingFrom(data: unknown): Shaping {
  const parsed = fileSchema.parse(data);
  const base = merge(DEFAULT_LIMITS, parsed.default ?? {});
  const overrides: Override[] = Object.entries(parsed.sites ?? {}).map(([pattern, limits]) => ({ pattern, limits }));
  return {
    limitsFor(site) {
      // the first override whose pattern names the site, one of its MX hosts or the domain wins
      const hit = overrides.find(
        (o) =>
          o.pattern.toLowerCase() === site.name ||
          site.hosts.some((h) => matchesPattern(o.pattern, h)) ||
          (site.domain !== undefined && matchesPattern(o.pattern, site.domain)),
      );
      return hit ? merge(base, hit.limits) : base;
    },
  };
}

/** Reads SHAPING_FILE (`.toml` or `.json`), or the defaults when unset. */
export function loadShaping(file: string | undefined): Shaping {
  if (!file) return shapingFrom({});
  const text = readFileSync(file, 'utf8');
  const data = file.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseToml(text);
  try {
    return shapingFrom(data);
  } catch (err) {
    throw new Error(
      `SHAPING_FILE ${file}: ${
        err instanceof z.ZodError
          ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
          : (err as Error).message
      }`,
    );
  }
}
