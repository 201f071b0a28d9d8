// Operations endpoints: liveness, readiness (the database answers) and Prometheus metrics; and the
// one HTTP server, which records every request it answers in those metrics.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpServer } from '../../src/server/server.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.close());

/** A bare GET: no session, no CSRF headers (probes and scrapers send none). */
function probe(path: string) {
  return app.api.request(`http://localhost:4321${path}`);
}

describe('GET /healthz', () => {
  it('answers 200 ok', async () => {
    const res = await probe('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /readyz', () => {
  it('answers 200 ready while the database answers', async () => {
    const res = await probe('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('answers 503 while the roles are starting and once a stop signal started the drain', async () => {
    const app = await createTestApp();
    try {
      app.ctx.lifecycle.state = 'starting';
      let res = await app.api.request('http://localhost:4321/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'starting' });
      app.ctx.lifecycle.state = 'draining';
      res = await app.api.request('http://localhost:4321/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'draining' });
      app.ctx.lifecycle.state = 'running';
      expect((await app.api.request('http://localhost:4321/readyz')).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('answers 503 once the database is gone', async () => {
    const doomed = await createTestApp();
    await doomed.close();
    const res = await doomed.api.request('http://localhost:4321/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'database unreachable' });
  });
});

describe('GET /metrics', () => {
  it('answers Prometheus text from the context registry', async () => {
    app.ctx.metrics.httpRequests.inc({ area: 'api', method: 'GET', status: '418' });
    const res = await probe('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE transact_http_requests_total counter');
    expect(text).toContain('# TYPE transact_http_request_duration_seconds histogram');
    expect(text).toContain('transact_http_requests_total{area="api",method="GET",status="418"} 1');
    // default process metrics are off in tests
    expect(text).not.toContain('transact_process_cpu');
  });
});

describe('the HTTP server', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createHttpServer({ ctx: app.ctx, api: app.api });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('counts each request it answers by area, method and status', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/v1/nothing-here`)).status).toBe(404);
    expect((await fetch(`${base}/some/page`)).status).toBe(404); // no pages in this server
    // a request is counted on its response's 'finish' (so its duration includes the body), which
    // can come after the client already has the answer: the scrape is repeated until it shows
    await vi.waitFor(async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(text).toMatch(/transact_http_requests_total\{area="api",method="GET",status="200"\} [1-9]/);
      expect(text).toMatch(/transact_http_requests_total\{area="api",method="GET",status="404"\} [1-9]/);
      expect(text).toMatch(/transact_http_requests_total\{area="page",method="GET",status="404"\} [1-9]/);
      expect(text).toMatch(/transact_http_request_duration_seconds_count\{area="api"\} [1-9]/);
    });
  });

  it('answers a request id, keeping a well-formed one from the client', async () => {
    const given = await fetch(`${base}/healthz`, { headers: { 'X-Request-Id': 'probe-123' } });
    expect(given.headers.get('x-request-id')).toBe('probe-123');
    const made = await fetch(`${base}/healthz`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
