// The data of `npm run bench:reports`: one customer's history bulk-loaded with SQL (generate_series),
// consistent with itself — every transaction has its message and group, and daily_stats,
// quota_usage and the groups' last send dates are computed from the transactions. daily_stats holds
// what happens on a day (migration 029): people's opens and clicks, keyed by the day of the first
// open and of the first click; no machine opens or clicks and no complaints (the rows have none).
// transaction_counts (the transactions' states by day of acceptance, with the bounce kind) is kept
// by the triggers of migrations 007 and 029 as the rows are inserted. No events: no report call
// reads them. Pseudo-random values come from hashint8extended(i, seed), so a size always yields the
// same rows.
import { sql } from 'kysely';

/** Groups of the bench customer; the first ones get most of the mail. */
export const GROUPS = [
  'Orders',
  'Shipping updates',
  'Password resets',
  'Invoices',
  'Welcome',
  'Newsletter receipts',
  'Abandoned carts',
  'Reviews',
  'Returns',
  'Account alerts',
  'Back in stock',
  'Price drops',
  'Loyalty',
  'Referrals',
  'Gift cards',
  'Surveys',
  'Subscriptions',
  'Receipts',
  'Two-factor codes',
  'Wishlist',
];

const FIRST = [
  'ann',
  'ben',
  'chloe',
  'david',
  'emma',
  'finn',
  'grace',
  'hugo',
  'isla',
  'jack',
  'kira',
  'liam',
  'maya',
  'noah',
  'olivia',
  'paul',
  'quinn',
  'rosa',
  'sam',
  'tara',
  'umar',
  'vera',
  'will',
  'xena',
  'yusuf',
  'zoe',
  'aisha',
  'bruno',
  'carmen',
  'dmitri',
  'elif',
  'farah',
  'gus',
  'hana',
  'ivan',
  'jun',
  'lena',
  'marco',
  'nia',
  'oscar',
];
const LAST = [
  'smith',
  'jones',
  'brown',
  'garcia',
  'muller',
  'rossi',
  'nowak',
  'silva',
  'kim',
  'chen',
  'patel',
  'okafor',
  'dubois',
  'novak',
  'larsen',
  'haddad',
  'tanaka',
  'costa',
  'berg',
  'walsh',
  'moreau',
  'khan',
  'ivanova',
  'fischer',
  'lopez',
];
const DOMAINS = [
  'example.com',
  'example.net',
  'example.org',
  'mail.example',
  'inbox.example',
  'post.example',
  'web.example',
];

/** Days of history the rows are spread over, ending now; the console's default range is the last 30. */
export const SPAN_DAYS = 180;
/** Each recipient gets this many messages on average, whatever the size. */
const MESSAGES_PER_RECIPIENT = 10;

/** `count` group names: GROUPS, then numbered copies of them (the 50-groups layout of bench-reports.mjs). */
export function groupNames(count = GROUPS.length) {
  return Array.from({ length: count }, (_, i) =>
    i < GROUPS.length ? GROUPS[i] : `${GROUPS[i % GROUPS.length]} ${1 + Math.floor(i / GROUPS.length)}`,
  );
}

const array = (items) => `array[${items.map((s) => `'${s}'`).join(',')}]`;
/** A uniform [0, 1) value per row and seed. */
const u = (seed) => `((abs(hashint8extended(i, ${seed})) % 1000000) / 1000000.0)`;

/**
 * The recipient of row i: first.last + number @ domain. Recipient k's address is unique, and a
 * given address (e.g. ann.smith42@…) exists at every size from 420 k rows up, with ~10 messages.
 */
function recipientOf(recipients) {
  const k = `(abs(hashint8extended(i, 7)) % ${recipients})`;
  return (
    `(${array(FIRST)})[1 + ${k} % ${FIRST.length}] || '.' || (${array(LAST)})[1 + (${k} / ${FIRST.length}) % ` +
    `${LAST.length}] || (${k} / 1000)::text || '@' || (${array(DOMAINS)})[1 + (${k} / 7) % ${DOMAINS.length}]`
  );
}

/** The rows' shared columns, computed once per row (a subquery both inserts use). */
function rows(size, from, to, now, groupCount = GROUPS.length) {
  const step = (SPAN_DAYS * 86400) / size;
  const t0 = new Date(now.getTime() - SPAN_DAYS * 86_400_000).toISOString();
  return `
    select i,
           timestamptz '${t0}' + ((i - 1 + ${u(2)}) * ${step}) * interval '1 second' as queued_at,
           ${u(3)} * 1000 as o, ${u(4)} as u4, ${u(5)} as u5, ${u(6)} as u6, ${u(7)} as u7, ${u(8)} as u8,
           ${u(9)} as u9, ${u(10)} as u10, ${u(11)} as u11,
           1 + floor(${groupCount} * power(${u(1)}, 2))::int as group_id,
           ${recipientOf(Math.max(1, Math.round(size / MESSAGES_PER_RECIPIENT)))} as to_email
      from generate_series(${from}::bigint, ${to}::bigint) as i`;
}

/**
 * What happens to each row: 96.5 % delivered, 1.5 % hard bounce, 0.5 % soft (retries exhausted),
 * 0.5 % suppressed, 0.3 % over quota, 0.7 % bounced after delivery; rows of the last two minutes
 * are still queued. Of the delivered, 45 % opened (1–5 times), 30 % of those clicked.
 */
function fates(size, from, to, now, groupCount) {
  const nowLit = `timestamptz '${now.toISOString()}'`;
  return `
    select r.*,
           case when r.queued_at > ${nowLit} - interval '2 minutes' then 'queued'
                when o < 965 then 'delivered' when o < 980 then 'hard' when o < 985 then 'soft'
                when o < 990 then 'suppressed' when o < 993 then 'no_quota'
                when u5 < 0.6 then 'later_hard' else 'later_soft' end as fate,
           least(${nowLit}, r.queued_at + (1 + u4 * 20) * interval '1 second') as sent_at
      from (${rows(size, from, to, now, groupCount)}) r`;
}

/** Inserts rows [from, to] of a `size`-row history: their messages, then their transactions. */
export async function loadRows(db, { customerId, domainId, size, from, to, now, groupCount = GROUPS.length }) {
  const nowLit = `timestamptz '${now.toISOString()}'`;
  await sql
    .raw(
      `insert into messages (id, customer_id, domain_id, from_email, from_name, to_header, subject, text, created_at)
       select i, ${customerId}, ${domainId}, 'orders@bench.example', 'Bench Shop', ` +
        `jsonb_build_array(jsonb_build_object('email', to_email)),
              (${array(groupNames(groupCount))})[group_id] || ' #' || i, 'Hello from Bench Shop', queued_at
         from (${rows(size, from, to, now, groupCount)}) r`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into transactions (id, uuid, customer_id, message_id, group_id, to_email, status, delivered_status, ` +
        `message_id_header,
                                 queued_at, sent_at, attempts, next_attempt_at, last_reply, bounce_type, bounce_reason,
                                 open_count, click_count, first_open_at, first_click_at)
       select i, gen_random_uuid(), ${customerId}, i, group_id, to_email,
              case fate when 'queued' then 'queued' when 'delivered' then 'sent' when 'later_hard' then 'sent' when ` +
        `'later_soft' then 'sent'
                        when 'no_quota' then 'no_quota' else 'failed' end,
              case fate when 'queued' then 'pending' when 'delivered' then 'delivered' when 'hard' then 'bounced'
                        when 'later_hard' then 'bounced' when 'later_soft' then 'bounced' else 'failed' end,
              '<' || i || '@bench.example>',
              queued_at,
              case when fate in ('delivered', 'later_hard', 'later_soft') then sent_at end,
              case fate when 'queued' then 0 when 'soft' then 50 when 'suppressed' then 0 when 'no_quota' then 0 ` +
        `else 1 end,
              case when fate = 'queued' then queued_at end,
              case fate when 'queued' then null when 'hard' then '550 5.1.1 User unknown' when 'soft' then '421 ` +
        `4.3.2 Service not available'
                        when 'suppressed' then 'suppressed: the recipient is on the suppression list'
                        when 'no_quota' then 'no_quota: the monthly sending quota is used up' else '250 2.0.0 OK' end,
              case fate when 'hard' then 'hard' when 'later_hard' then 'hard' when 'soft' then 'soft' when ` +
        `'later_soft' then 'soft' end,
              case fate when 'hard' then '550 5.1.1 User unknown' when 'later_hard' then '5.1.1 The email account ` +
        `does not exist'
                        when 'soft' then '421 4.3.2 Service not available' when 'later_soft' then '5.2.2 Mailbox ` +
        `full' end,
              opens, clicks,
              case when opens > 0 then first_open end,
              case when clicks > 0 then least(${nowLit}, first_open + u11 * interval '10 minutes') end
         from (select f.*,
                      case when fate = 'delivered' and u6 < 0.45 then 1 + floor(power(u7, 3) * 5)::int else 0 end as ` +
        `opens,
                      case when fate = 'delivered' and u6 < 0.45 and u9 < 0.3 then 1 + floor(power(u10, 3) * 3)::int ` +
        `else 0 end as clicks,
                      least(${nowLit}, sent_at + power(u8, 2) * interval '72 hours') as first_open
                 from (${fates(size, from, to, now, groupCount)}) f) t`,
    )
    .execute(db);
}

/** The groups (ids 1…), created at the start of the history. */
export async function insertGroups(db, customerId, now, groupCount = GROUPS.length) {
  const created = new Date(now.getTime() - SPAN_DAYS * 86_400_000).toISOString();
  await sql
    .raw(
      `insert into transaction_groups (id, uuid, customer_id, name, created_at)
       select n, gen_random_uuid(), ${customerId}, (${array(groupNames(groupCount))})[n], timestamptz '${created}' ` +
        `from generate_series(1, ${groupCount}) n`,
    )
    .execute(db);
}

/**
 * What daily_stats holds of the rows, per group and UTC day (the rows have no machine opens or clicks,
 * no complaints).
 */
function dailyStatsOf(customerId) {
  const utcDay = (column) => `(${column} at time zone 'UTC')::date`;
  return (
    `select group_id, day, sum(opens)::bigint as opens, sum(clicks)::bigint as clicks, 0::bigint as machine_opens,
                 0::bigint as machine_clicks, 0::bigint as complaints
            from (select group_id, ${utcDay('first_open_at')} as day, open_count as opens, 0 as clicks from ` +
    `transactions where customer_id = ${customerId} and first_open_at is not null
                  union all
                  select group_id, ${utcDay('first_click_at')}, 0, click_count from transactions where ` +
    `customer_id = ${customerId} and first_click_at is not null) x
           group by group_id, day`
  );
}

/** daily_stats, quota_usage and the groups' last send dates, computed from the rows. */
export async function deriveRollups(db, customerId) {
  await sql
    .raw(
      `insert into daily_stats (customer_id, group_id, day, opens, clicks, machine_opens, machine_clicks, complaints)
       select ${customerId}, group_id, day, opens, clicks, machine_opens, machine_clicks, complaints
         from (${dailyStatsOf(customerId)}) s`,
    )
    .execute(db);
  // quota: what was accepted for delivery (not suppressed, not over quota), per calendar month
  await sql
    .raw(
      `insert into quota_usage (customer_id, month, used)
       select ${customerId}, date_trunc('month', queued_at at time zone 'UTC')::date, count(*)
         from transactions where customer_id = ${customerId} and status <> 'no_quota' and not (status = 'failed' and ` +
        `bounce_type is null)
        group by 2`,
    )
    .execute(db);
  await sql
    .raw(
      `update transaction_groups g set last_send_at = s.last from (select group_id, max(queued_at) as last from ` +
        `transactions where customer_id = ${customerId} group by group_id) s
        where g.id = s.group_id`,
    )
    .execute(db);
}

/** The identity sequences continue after the explicit ids. */
export async function resetSequences(db) {
  for (const table of ['messages', 'transactions', 'transaction_groups']) {
    await sql
      .raw(`select setval(pg_get_serial_sequence('${table}', 'id'), (select coalesce(max(id), 1) from ${table}))`)
      .execute(db);
  }
}

/** transaction_counts' key, and what it is of a transaction (migrations 007, 029). */
const COUNTS_KEY = 'group_id, day, status, delivered_status, opened, clicked, bounce';
const countsOf = (customerId) =>
  `select group_id, (queued_at at time zone 'UTC')::date as day, status, delivered_status, open_count > 0 as opened,
          click_count > 0 as clicked, coalesce(bounce_type, '') as bounce, count(*)::bigint as n
     from transactions where customer_id = ${customerId}
    group by ${COUNTS_KEY}`;

/**
 * The rollups (daily_stats, transaction_counts) against the rows they summarize: every row of each
 * must agree with the one computed from the transactions (same key, same columns; none missing or
 * extra), and the totals are compared column by column.
 */
export async function checkRollups(db, customerId) {
  const stats = `select group_id, day, opens::bigint, clicks::bigint, machine_opens::bigint, machine_clicks::bigint,
                        complaints::bigint
                   from daily_stats where customer_id = ${customerId}`;
  const counts = `select ${COUNTS_KEY}, n::bigint from transaction_counts where customer_id = ${customerId} and n <> 0`;
  /** Rows of a that b lacks plus rows of b that a lacks. */
  const differing = async (a, b) => {
    const {
      rows: [r],
    } = await sql
      .raw(
        `select (select count(*) from ((${a}) except all (${b})) x) +
                (select count(*) from ((${b}) except all (${a})) y) as n`,
      )
      .execute(db);
    return Number(r.n);
  };
  const statsRows = await differing(stats, dailyStatsOf(customerId));
  const countsRows = await differing(counts, countsOf(customerId));
  const sums = (source) =>
    `select coalesce(sum(opens), 0) opens, coalesce(sum(clicks), 0) clicks,
            coalesce(sum(machine_opens), 0) machine_opens, coalesce(sum(machine_clicks), 0) machine_clicks,
            coalesce(sum(complaints), 0) complaints from (${source}) s`;
  const states = (source) =>
    `select coalesce(sum(n), 0) counts_all,
            coalesce(sum(n) filter (where delivered_status = 'delivered'), 0) counts_delivered,
            coalesce(sum(n) filter (where delivered_status = 'bounced'), 0) counts_bounced,
            coalesce(sum(n) filter (where delivered_status = 'bounced' and bounce = 'hard'), 0) counts_bounced_hard,
            coalesce(sum(n) filter (where delivered_status = 'bounced' and bounce = 'soft'), 0) counts_bounced_soft,
            coalesce(sum(n) filter (where delivered_status = 'failed'), 0) counts_failed,
            coalesce(sum(n) filter (where delivered_status = 'pending'), 0) counts_pending,
            coalesce(sum(n) filter (where delivered_status = 'delivered' and opened), 0) counts_opened,
            coalesce(sum(n) filter (where delivered_status = 'delivered' and clicked), 0) counts_clicked,
            coalesce(sum(n) filter (where bounce = 'hard'), 0) counts_hard,
            coalesce(sum(n) filter (where bounce = 'soft'), 0) counts_soft
       from (${source}) c`;
  const one = async (query) => (await sql.raw(query).execute(db)).rows[0];
  const s = { ...(await one(sums(stats))), ...(await one(states(counts))) };
  // from the rows themselves, not from the grouped queries above: open_count, click_count, bounce_type
  const t = {
    ...(await one(
      `select coalesce(sum(open_count), 0) opens, coalesce(sum(click_count), 0) clicks, 0 machine_opens,
              0 machine_clicks, 0 complaints
         from transactions where customer_id = ${customerId}`,
    )),
    ...(await one(`select count(*) counts_all, count(*) filter (where delivered_status = 'delivered') counts_delivered,
              count(*) filter (where delivered_status = 'bounced') counts_bounced,
              count(*) filter (where delivered_status = 'bounced' and bounce_type = 'hard') counts_bounced_hard,
              count(*) filter (where delivered_status = 'bounced' and bounce_type = 'soft') counts_bounced_soft,
              count(*) filter (where delivered_status = 'failed') counts_failed,
              count(*) filter (where delivered_status = 'pending') counts_pending,
              count(*) filter (where delivered_status = 'delivered' and open_count > 0) counts_opened,
              count(*) filter (where delivered_status = 'delivered' and click_count > 0) counts_clicked,
              count(*) filter (where bounce_type = 'hard') counts_hard,
              count(*) filter (where bounce_type = 'soft') counts_soft
         from transactions where customer_id = ${customerId}`)),
  };
  const mismatches = Object.keys(t).filter((k) => Number(s[k]) !== Number(t[k]));
  if (statsRows) mismatches.push(`daily_stats rows (${statsRows} differ)`);
  if (countsRows) mismatches.push(`transaction_counts rows (${countsRows} differ)`);
  return {
    match: mismatches.length === 0,
    mismatches,
    totals: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Number(v)])),
  };
}

/** Tracked links per group: each clicked transaction clicked one to three of them. */
export const LINKS_PER_GROUP = 8;

/**
 * link_stats (migration 009) from the rows: each clicked transaction's clicks spread over one to
 * three of its group's LINKS_PER_GROUP URLs, keyed by the acceptance day as the click recorder keys
 * them. The subject is the group's template subject ('<group> update'): the bench's messages carry a
 * unique '#i' in theirs, which real transactional templates do not, and one link row per message
 * would not be a Links tab anyone sees.
 */
export async function deriveLinkStats(db, customerId, groupCount = GROUPS.length) {
  await sql
    .raw(
      `insert into link_stats (customer_id, group_id, day, link_key, url, subject, clicks, unique_clicks)
       select ${customerId}, group_id, day, md5(url || chr(10) || subject)::uuid, url, subject, sum(clicks), count(*)
         from (select t.group_id, (t.queued_at at time zone 'UTC')::date as day,
                      'https://bench.example/' || t.group_id || '/link-' || ((t.id + k) % ${LINKS_PER_GROUP}) as url,
                      (${array(groupNames(groupCount))})[t.group_id] || ' update' as subject,
                      case when k = 0 then t.click_count - least(t.click_count, 3) + 1 else 1 end as clicks
                 from transactions t, generate_series(0, least(t.click_count, 3) - 1) as k
                where t.customer_id = ${customerId} and t.click_count > 0) x
        group by group_id, day, url, subject`,
    )
    .execute(db);
}
