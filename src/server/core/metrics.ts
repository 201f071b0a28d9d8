// Prometheus metrics at /metrics, every name prefixed transact_. One registry per context, so tests
// that build several contexts in one process do not collide.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'area' | 'method' | 'status'>;
  httpDuration: Histogram<'area'>;
  /** Deliveries an MTA-STS `testing` policy would have refused under `enforce` (RFC 8461 §5). */
  mtaStsTestingFailures: Counter;
}

export function createMetrics(collectDefaults = true): Metrics {
  const registry = new Registry();
  if (collectDefaults) collectDefaultMetrics({ register: registry, prefix: 'transact_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'transact_http_requests_total',
      help: 'HTTP requests answered, by area (api, page, static), method and status',
      labelNames: ['area', 'method', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'transact_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by area',
      labelNames: ['area'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    mtaStsTestingFailures: new Counter({
      name: 'transact_mta_sts_testing_failures_total',
      help: 'Direct deliveries an MTA-STS testing policy would have refused under enforce (delivered and reported)',
      registers: [registry],
    }),
  };
}
