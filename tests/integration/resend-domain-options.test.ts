// A sending domain's own options with the official `resend` SDK over a real socket: create with
// every option Resend takes, read them back, change them with domains.update; and open and click
// tracking decided per domain (the account's Sending Options where the domain has no choice of its
// own), seen in the mail the worker delivers to a local sink.
import { simpleParser } from 'mailparser';
import type { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, type TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let resend: Resend;
let other: Resend;
let customerId: number;

const PIXEL = `<img src="${ORIGIN}/t/o/`;
const TRACKED_LINK = `${ORIGIN}/t/c/`;

beforeAll(async () => {
  started = await startResendApp({ second: true });
  ({ app, resend } = started);
  sink = started.sink!;
  other = started.other!;
  customerId = started.account.customerId;
}, 240_000);

afterAll(async () => {
  await started?.close();
});

async function setAccountTracking(on: boolean): Promise<void> {
  await app.ctx.db
    .updateTable('customers')
    .set({ track_opens: on, track_links: on })
    .where('id', '=', customerId)
    .execute();
}

/** Marks the domain verified, as its confirmation link would. */
async function verified(id: string): Promise<void> {
  await app.ctx.db.updateTable('domains').set({ sending_verified: true }).where('id', '=', Number(id)).execute();
}

/** Sends one HTML message with a link from `from` and answers the HTML of the copy the sink received. */
async function deliveredFrom(from: string): Promise<string> {
  const { data, error } = await resend.emails.send({
    from,
    to: 'ann@customer.example',
    subject: 'Your order',
    html: '<p><a href="https://shop.example/orders/1">Your order</a></p>',
  });
  expect(error).toBeNull();
  const id = data!.id.replace(/-/g, '');
  await expect.poll(() => sink.messages.some((m) => m.from.includes(id)), { timeout: 15_000 }).toBe(true);
  const parsed = await simpleParser(sink.messages.find((m) => m.from.includes(id))!.raw);
  return parsed.html || '';
}

describe('domains.create, get, list and update with the options', () => {
  let id: string;

  it('creates a domain with every option and answers them', async () => {
    const { data, error } = await resend.domains.create({
      name: 'options.example',
      region: 'eu-west-1',
      customReturnPath: 'Mail',
      capabilities: { receiving: 'enabled' },
      openTracking: false,
      clickTracking: true,
      tls: 'enforced',
      trackingSubdomain: 'links',
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      name: 'options.example',
      region: 'eu-west-1',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
      open_tracking: false,
      click_tracking: true,
      tls: 'enforced',
      tracking_subdomain: 'links',
    });
    // the return-path record is named with the custom subdomain
    expect(data!.records).toContainEqual(
      expect.objectContaining({ record: 'ReturnPath', name: 'mail.options.example' }),
    );
    id = data!.id;
    const got = await resend.domains.get(id);
    expect(got.data).toMatchObject({
      open_tracking: false,
      click_tracking: true,
      tls: 'enforced',
      region: 'eu-west-1',
    });
  });

  it('answers the account’s tracking for a domain without its own, and the defaults', async () => {
    await setAccountTracking(true);
    const { data } = await resend.domains.create({ name: 'plain.example' });
    expect(data).toMatchObject({
      region: 'us-east-1',
      capabilities: { sending: 'enabled', receiving: 'disabled' },
      open_tracking: true,
      click_tracking: true,
      tls: 'opportunistic',
    });
    expect(data).not.toHaveProperty('tracking_subdomain');
    await setAccountTracking(false);
    const listed = (await resend.domains.list()).data!.data.find((d) => d.name === 'plain.example');
    expect(listed).toMatchObject({ open_tracking: false, click_tracking: false });
  });

  it('changes only the options given with domains.update', async () => {
    const { data, error } = await resend.domains.update({
      id,
      openTracking: true,
      tls: 'opportunistic',
      capabilities: { receiving: 'disabled' },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ object: 'domain', id });
    expect((await resend.domains.get(id)).data).toMatchObject({
      open_tracking: true,
      click_tracking: true,
      tls: 'opportunistic',
      capabilities: { sending: 'enabled', receiving: 'disabled' },
      region: 'eu-west-1',
      tracking_subdomain: 'links',
    });
  });

  it('refuses an unknown option or value, and another account’s domain', async () => {
    const bad = await resend.domains.update({ id, tls: 'always' as 'enforced' });
    expect(bad.error).toMatchObject({ name: 'validation_error' });
    const region = await resend.domains.create({ name: 'far.example', region: 'mars-1' as 'eu-west-1' });
    expect(region.error).toMatchObject({ name: 'validation_error' });
    const label = await resend.domains.create({ name: 'far.example', customReturnPath: 'a.b' });
    expect(label.error).toMatchObject({ name: 'validation_error' });
    const theirs = await other.domains.update({ id, openTracking: false });
    expect(theirs.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    const unknown = await resend.domains.update({ id: 'abc', openTracking: false });
    expect(unknown.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await resend.domains.get(id)).data).toMatchObject({ open_tracking: true, tls: 'opportunistic' });
  });
});

describe('tracking per sending domain', () => {
  it('adds the pixel and tracked links by each domain’s choice, the account’s where it has none', async () => {
    await setAccountTracking(true);
    const quiet = await resend.domains.create({ name: 'quiet.example', openTracking: false, clickTracking: false });
    const loud = await resend.domains.create({ name: 'loud.example', openTracking: true, clickTracking: true });
    await addDomain(app.ctx, customerId, 'follows.example', { verified: true });
    await verified(quiet.data!.id);
    await verified(loud.data!.id);

    const fromQuiet = await deliveredFrom('orders@quiet.example');
    expect(fromQuiet).not.toContain(PIXEL);
    expect(fromQuiet).not.toContain(TRACKED_LINK);
    const fromLoud = await deliveredFrom('orders@loud.example');
    expect(fromLoud).toContain(PIXEL);
    expect(fromLoud).toContain(TRACKED_LINK);
    expect(await deliveredFrom('orders@follows.example')).toContain(PIXEL);

    // the account's setting off: the domain that chose tracking keeps it, the one that follows loses it
    await setAccountTracking(false);
    expect(await deliveredFrom('orders@loud.example')).toContain(PIXEL);
    expect(await deliveredFrom('orders@follows.example')).not.toContain(PIXEL);

    // null gives the choice back to the account
    await resend.domains.update({ id: loud.data!.id, openTracking: null as unknown as boolean });
    expect(await deliveredFrom('orders@loud.example')).not.toContain(PIXEL);
  });
});
