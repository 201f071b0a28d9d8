// Prometheus metrics at /metrics, every name prefixed transact_. One registry per context, so tests
// that build several contexts in one process do not collide.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'area' | 'method' | 'status'>;
  httpDuration: Histogram<'area'>;
  /** Deliveries an MTA-STS `testing` policy would have refused under `enforce` (RFC 8461 §5). */
  mtaStsTestingFailures: Counter;
  /** SMTP messages that waited before acceptance because delivery was behind (delivery/in-flow.ts). */
  smtpInFlowDelays: Counter;
  /** How long the oldest message the delivery worker last took had waited since acceptance. */
  deliveryLag: Gauge;
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
    smtpInFlowDelays: new Counter({
      name: 'transact_smtp_in_flow_delays_total',
      help: 'SMTP messages whose MAIL FROM waited because delivery was behind (SMTP_IN_FLOW_DELAY_MS)',
      registers: [registry],
    }),
    deliveryLag: new Gauge({
      name: 'transact_delivery_lag_seconds',
      help:
        "Time the oldest first attempt in the delivery worker's " +
        'last claim had waited since acceptance (0: keeping up)',
      registers: [registry],
    }),
  };
}
