// The console's Inbound calls (docs/console.md §2 "Inbound", §7): POST /v1/inbound/search and
// GET /v1/inbound/{id} with a session, over mail put in through the real MX listener by nodemailer
// (SPF, DKIM and DMARC answered by a local DNS server), as another mail server would send it; the
// replies in a sent message's More Info timeline, and the domain's switch that refuses mail failing
// DMARC under p=reject (docs/receiving.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { countReceived, idOf, type Receiving, startReceiving } from '../helpers/receiving.ts';
import { openDialog } from '../helpers/smtp-dialog.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import type { BounceReceiver } from '../../src/server/bounces/receiver.ts';
import type { InboundMessageWire, InboundRowWire } from '../../src/contract/inbound.ts';

let receiving: Receiving;
let app: TestApp;
let receiver: BounceReceiver;
let cookie: string;
let strangerCookie: string;
let apiKey: string;
let sentUuid: string;
let shopId: number;
const ids: Record<string, string> = {};

const mx = (dkim = false) => receiving.mx({ dkim });

beforeAll(async () => {
  receiving = await startReceiving();
  ({ app, receiver, apiKey, shopId } = receiving);
  cookie = await app.signIn(receiving.account.email, receiving.account.password);
  const stranger = await app.createAccount();
  strangerCookie = await app.signIn(stranger.email, stranger.password);
  receiving.publishSenderPolicies();

  for (let i = 1; i <= 11; i++) {
    const info = await mx(true).sendMail({
      from: `Customer ${i} <c${i}@sender.example>`,
      to: 'support@shop.example',
      subject: `Question ${i}`,
      text: `Question number ${i}`,
    });
    ids[`q${i}`] = idOf(info.response);
  }
  const forged = await mx().sendMail({ from: 'ceo@bank.example', to: 'billing@shop.example', subject: 'Wire 100%' });
  ids.forged = idOf(forged.response);
  const sent = await app.call('POST', '/v1/mail', {
    headers: { Authorization: `Bearer ${apiKey}` },
    body: { from: 'orders@shop.example', to: 'zoe@sender.example', subject: 'Your order', text: 'Shipped.' },
  });
  sentUuid = ((await sent.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid;
  const reply = await mx(true).sendMail({
    from: 'Zoë Ünal <zoe@sender.example>',
    to: 'Orders <orders@shop.example>',
    subject: 'Re: Your order',
    text: 'Thanks! Photo attached.',
    html:
      '<p onclick="steal()">Thanks!<script>steal()</script></p><img src="https://track.example/open.gif" alt="">' +
      '<a href="https://sender.example/">site</a>',
    inReplyTo: `<${sentUuid}@shop.example>`,
    attachments: [{ filename: 'photo.jpg', content: Buffer.alloc(2048, 7), contentType: 'image/jpeg' }],
  });
  ids.reply = idOf(reply.response);
}, 120_000);

afterAll(async () => {
  await receiving?.close();
});

type SearchAnswer = { data: InboundRowWire[]; meta: Record<string, unknown> };

async function search(body: Record<string, unknown>, as = cookie): Promise<SearchAnswer> {
  const res = await app.call('POST', '/v1/inbound/search', { cookie: as, body });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as SearchAnswer;
}

describe('POST /v1/inbound/search', () => {
  it('pages the account’s received mail newest first, 10 a page, with the verdicts', async () => {
    const first = await search({ page: 1 });
    expect(first.meta).toEqual({ current_page: 1, per_page: 10, total: 13, last_page: 2, total_capped: false });
    expect(first.data.map((r) => r.id)).toEqual([
      ids.reply,
      ids.forged,
      ...[11, 10, 9, 8, 7, 6, 5, 4].map((i) => ids[`q${i}`]),
    ]);
    expect(first.data[0]).toMatchObject({
      from: 'Zoë Ünal <zoe@sender.example>',
      to: ['Orders <orders@shop.example>'],
      received_for: ['orders@shop.example'],
      subject: 'Re: Your order',
      authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass', flagged: false },
      attachment_count: 1,
      in_reply_to_email_id: sentUuid,
    });
    expect(first.data[1].authentication).toMatchObject({ dmarc: 'fail', flagged: true });
    const second = await search({ page: 2 });
    expect(second.data.map((r) => r.id)).toEqual([3, 2, 1].map((i) => ids[`q${i}`]));
  });

  it('searches a piece of From, To or Subject in any case; % and _ are plain characters', async () => {
    expect((await search({ search: 'QUESTION 1' })).data.map((r) => r.subject)).toEqual([
      'Question 11',
      'Question 10',
      'Question 1',
    ]);
    expect((await search({ search: 'c7@sender' })).data.map((r) => r.id)).toEqual([ids.q7]);
    expect((await search({ search: 'billing@' })).data.map((r) => r.id)).toEqual([ids.forged]);
    expect((await search({ search: 'Zoë' })).data.map((r) => r.id)).toEqual([ids.reply]);
    expect((await search({ search: '100%' })).data.map((r) => r.id)).toEqual([ids.forged]);
    expect((await search({ search: '1_' })).data).toEqual([]);
    const none = await search({ search: 'nothing like it' });
    expect(none).toEqual({
      data: [],
      meta: { current_page: 1, per_page: 10, total: 0, last_page: 1, total_capped: false },
    });
  });

  it('shows another account nothing, and refuses what the contract does not take', async () => {
    expect((await search({}, strangerCookie)).data).toEqual([]);
    const unknownField = await app.call('POST', '/v1/inbound/search', { cookie, body: { page: 1, sort: 'x' } });
    expect(unknownField.status).toBe(400);
    const badPage = await app.call('POST', '/v1/inbound/search', { cookie, body: { page: 0 } });
    expect(badPage.status).toBe(400);
    const signedOut = await app.call('POST', '/v1/inbound/search', { body: {} });
    expect(signedOut.status).toBe(401);
    const crossSite = await app.call('POST', '/v1/inbound/search', {
      cookie,
      body: {},
      headers: { 'Request-Type': '' },
    });
    expect(crossSite.status).toBe(403);
  });
});

describe('GET /v1/inbound/{id}', () => {
  it('answers the message with its HTML sanitised, headers, signed links and the transaction it answers', async () => {
    const res = await app.call('GET', `/v1/inbound/${ids.reply}`, { cookie });
    expect(res.status).toBe(200);
    const email = (await res.json()) as InboundMessageWire;
    expect(email).toMatchObject({
      id: ids.reply,
      subject: 'Re: Your order',
      envelope_from: 'zoe@sender.example',
      text: expect.stringContaining('Thanks! Photo attached.'),
      remote_content_blocked: 1,
      authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass', flagged: false },
      in_reply_to_email_id: sentUuid,
      in_reply_to: { trans_uuid: sentUuid, tm_subject: 'Your order', trans_to_email: 'zoe@sender.example' },
    });
    expect(email.html).toContain('<p>Thanks!</p>');
    expect(email.html).not.toMatch(/script|onclick|track\.example/);
    expect(email.html).toContain('target="_blank" rel="noopener noreferrer"');
    expect(email.headers.find((h) => h.name.toLowerCase() === 'subject')?.value).toBe('Re: Your order');
    expect(email.attachments).toHaveLength(1);
    const [photo] = email.attachments;
    expect(photo).toMatchObject({ filename: 'photo.jpg', content_type: 'image/jpeg', size: 2048 });
    const download = await fetch(photo.download_url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.alloc(2048, 7))).toBe(true);
    const raw = await fetch(email.raw.download_url);
    expect(raw.headers.get('content-type')).toBe('message/rfc822');
    const rawText = await raw.text();
    expect(rawText).toMatch(/^Received-SPF: pass/);
    expect(Buffer.byteLength(rawText)).toBe(email.raw.size);
  });

  it('answers a message that answers nothing with in_reply_to null', async () => {
    const email = (await (await app.call('GET', `/v1/inbound/${ids.forged}`, { cookie })).json()) as InboundMessageWire;
    expect(email).toMatchObject({ in_reply_to: null, in_reply_to_email_id: null, html: null, attachments: [] });
  });

  it('answers 404 to another account’s id, an unknown id and a malformed one; 401 signed out', async () => {
    for (const [id, as] of [
      [ids.reply, strangerCookie],
      ['0b5f8c64-2f7e-4a47-9c55-1d1e2b6c7a10', cookie],
      ['not-a-uuid', cookie],
      ["1' or '1'='1", cookie],
    ]) {
      const res = await app.call('GET', `/v1/inbound/${encodeURIComponent(id)}`, { cookie: as });
      expect(res.status, id).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    expect((await app.call('GET', `/v1/inbound/${ids.reply}`)).status).toBe(401);
  });
});

/** The More Info timeline's answer for transaction `uuid`. */
async function timelineOf(uuid: string, as = cookie) {
  const res = await app.call('GET', `/v1/transactions/${uuid}/events`, { cookie: as });
  return { status: res.status, body: (await res.json()) as { data: unknown[]; replies: Record<string, unknown>[] } };
}

describe('GET /v1/transactions/{uuid}/events: the replies received', () => {
  it('lists each reply to the sent message, oldest first, with its sender and time', async () => {
    const first = (await (await app.call('GET', `/v1/inbound/${ids.reply}`, { cookie })).json()) as InboundMessageWire;
    const { status, body } = await timelineOf(sentUuid);
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.replies).toEqual([
      { id: ids.reply, from: 'Zoë Ünal <zoe@sender.example>', time: Math.floor(Date.parse(first.received_at) / 1000) },
    ]);

    // a second reply naming the message in References only
    const again = await mx(true).sendMail({
      from: 'zoe@sender.example',
      to: 'orders@shop.example',
      subject: 'Re: Re: Your order',
      text: 'One more thing.',
      references: [`<other@sender.example>`, `<${sentUuid}@shop.example>`],
    });
    const secondId = idOf(again.response);
    const replies = (await timelineOf(sentUuid)).body.replies;
    expect(replies.map((r) => [r.id, r.from])).toEqual([
      [ids.reply, 'Zoë Ünal <zoe@sender.example>'],
      [secondId, 'zoe@sender.example'],
    ]);
    expect(Number(replies[0].time)).toBeLessThanOrEqual(Number(replies[1].time));
  });

  it('shows another account nothing: not our transaction, and no reply of ours on theirs', async () => {
    expect((await timelineOf(sentUuid, strangerCookie)).status).toBe(404);
    // another account's sent message; a reply naming it reaches our domain and is ours, unlinked
    const other = await app.createAccount();
    await addDomain(app.ctx, other.customerId, 'other.example', { verified: true });
    const otherKey = (await credentialsForConsole(app.ctx, other.customerId)).apiCredentials.apiKey;
    const otherCookie = await app.signIn(other.email, other.password);
    const sent = await app.call('POST', '/v1/mail', {
      headers: { Authorization: `Bearer ${otherKey}` },
      body: { from: 'news@other.example', to: 'zoe@sender.example', subject: 'Theirs', text: 'Hi.' },
    });
    const theirUuid = ((await sent.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid;
    const info = await mx(true).sendMail({
      from: 'zoe@sender.example',
      to: 'support@shop.example',
      subject: 'Re: Theirs',
      text: 'Sent to the wrong shop.',
      inReplyTo: `<${theirUuid}@other.example>`,
    });
    const email = (await (await app.call('GET', `/v1/inbound/${idOf(info.response)}`, { cookie })).json()) as {
      in_reply_to_email_id: string | null;
    };
    expect(email.in_reply_to_email_id).toBeNull();
    expect(await timelineOf(theirUuid, otherCookie)).toMatchObject({ status: 200, body: { replies: [] } });
    expect((await timelineOf(theirUuid)).status).toBe(404);
  });
});

describe('PUT /v1/domains/{id}/receiving: inbound_refuse_dmarc_reject', () => {
  const put = (body: Record<string, unknown>, as = cookie, id: string | number = shopId) =>
    app.call('PUT', `/v1/domains/${id}/receiving`, { cookie: as, body });

  /** A message whose From (bank.example, p=reject) this server may not send for, by hand over SMTP. */
  async function forgedAnswer(): Promise<string> {
    const dialog = await openDialog(receiver.port);
    await dialog.command('EHLO mail.sender.example');
    await dialog.command('MAIL FROM:<ceo@bank.example>');
    expect(await dialog.command('RCPT TO:<billing@shop.example>')).toMatch(/^250/);
    expect(await dialog.command('DATA')).toMatch(/^354/);
    const reply = await dialog.raw('From: ceo@bank.example\r\nSubject: Wire it now\r\n\r\nNow.\r\n.\r\n');
    dialog.end();
    return reply;
  }

  it('set, the listener refuses a forged From at DATA with 550 5.7.1; off, it is accepted and flagged', async () => {
    const on = await put({ inbound_refuse_dmarc_reject: true });
    expect(on.status).toBe(200);
    expect(((await on.json()) as { domain: unknown }).domain).toMatchObject({
      domain_receiving: true,
      domain_inbound_refuse_dmarc_reject: true,
    });
    const details = await app.call('GET', `/v1/domains/${shopId}`, { cookie });
    expect(((await details.json()) as { domain: unknown }).domain).toMatchObject({
      domain_inbound_refuse_dmarc_reject: true,
    });
    const before = await countReceived(app);
    expect(await forgedAnswer()).toMatch(/^550 5\.7\.1 /);
    expect(await countReceived(app)).toBe(before);

    const off = await put({ inbound_refuse_dmarc_reject: false });
    expect(((await off.json()) as { domain: unknown }).domain).toMatchObject({
      domain_receiving: true,
      domain_inbound_refuse_dmarc_reject: false,
    });
    const accepted = await forgedAnswer();
    expect(accepted).toMatch(/^250 /);
    const email = (await (
      await app.call('GET', `/v1/inbound/${idOf(accepted)}`, { cookie })
    ).json()) as InboundMessageWire;
    expect(email.authentication).toMatchObject({ spf: 'fail', dmarc: 'fail', flagged: true });
  });

  it('changes the fields given only; 404 for another account or a bad id; 400 for a field not taken', async () => {
    expect((await put({ enabled: false })).status).toBe(200);
    const kept = await put({});
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as { domain: unknown }).domain).toMatchObject({
      domain_receiving: false,
      domain_inbound_refuse_dmarc_reject: false,
    });
    expect((await put({ enabled: true })).status).toBe(200);
    expect((await put({ inbound_refuse_dmarc_reject: true }, strangerCookie)).status).toBe(404);
    expect((await put({ inbound_refuse_dmarc_reject: true }, cookie, 'x1')).status).toBe(404);
    expect((await put({ inbound_refuse_dmarc_reject: 'yes' })).status).toBe(400);
    expect((await put({ refuse: true })).status).toBe(400);
    const after = (await (await app.call('GET', `/v1/domains/${shopId}`, { cookie })).json()) as { domain: unknown };
    expect(after.domain).toMatchObject({ domain_receiving: true, domain_inbound_refuse_dmarc_reject: false });
  });
});
