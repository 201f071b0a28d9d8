// What the demo account's history is made of (`npm run demo`): its groups with their subjects,
// bodies and engagement rates, the recipients, the daily rhythm of sending, and the fate of each
// message. Pure and seeded, so a run is reproducible; src/server/demo/demo.ts records the plan
// through the service's own code paths.

/** A small, fast seeded generator (mulberry32); Math.random would make runs unrepeatable. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Picks an index by weight. */
function weighted(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}

/** An exponentially distributed delay with this mean. */
const exponential = (random: Random, meanMs: number) => -Math.log(1 - random()) * meanMs;

export const DEMO_DOMAIN = 'demo-shop.example';
export const DEMO_SITE = `https://${DEMO_DOMAIN}`;

/** A group of the demo customer: what its messages say and how recipients treat them. */
export interface DemoGroup {
  name: string;
  /** Share of all messages. */
  weight: number;
  from: { email: string; name: string };
  subject(n: number): string;
  /** Paths of the links in the message (1–3), under DEMO_SITE. */
  links: readonly string[];
  /** Share of delivered messages opened at least once, and of opened ones clicked. */
  openRate: number;
  clickRate: number;
  /** Share of delivered messages whose recipient unsubscribes. */
  unsubscribeRate: number;
  /** Custom headers of message n (More Info lists them); none when absent. */
  headers?: (n: number) => Record<string, string>;
}

const shop = (local: string) => ({ email: `${local}@${DEMO_DOMAIN}`, name: 'Demo Shop' });

export const DEMO_GROUPS: readonly DemoGroup[] = [
  {
    name: 'Orders',
    weight: 34,
    from: shop('orders'),
    subject: (n) => `Your order #${n} is confirmed`,
    links: ['/orders', '/help/returns'],
    openRate: 0.58,
    clickRate: 0.14,
    unsubscribeRate: 0,
    headers: (n) => ({ 'X-Order-Id': String(n), 'X-Shop-Channel': 'web' }),
  },
  {
    name: 'Shipping updates',
    weight: 24,
    from: shop('orders'),
    subject: (n) => `Order #${n} is on its way`,
    links: ['/track', '/orders'],
    openRate: 0.52,
    clickRate: 0.34,
    unsubscribeRate: 0,
  },
  {
    name: 'Password resets',
    weight: 9,
    from: shop('no-reply'),
    subject: () => 'Reset your Demo Shop password',
    links: ['/account/reset'],
    openRate: 0.78,
    clickRate: 0.72,
    unsubscribeRate: 0,
  },
  {
    name: 'Welcome',
    weight: 10,
    from: shop('hello'),
    subject: () => 'Welcome to Demo Shop',
    links: ['/account', '/new-arrivals', '/help'],
    openRate: 0.47,
    clickRate: 0.18,
    unsubscribeRate: 0.002,
  },
  {
    name: 'Invoices',
    weight: 11,
    from: shop('billing'),
    subject: (n) => `Invoice INV-${n} for your order`,
    links: ['/account/invoices'],
    openRate: 0.41,
    clickRate: 0.22,
    unsubscribeRate: 0,
    headers: (n) => ({ 'X-Invoice-Number': `INV-${n}` }),
  },
  {
    name: 'Newsletter receipts',
    weight: 12,
    from: shop('news'),
    subject: () => 'You are subscribed to the Demo Shop newsletter',
    links: ['/newsletter', '/new-arrivals'],
    openRate: 0.36,
    clickRate: 0.1,
    unsubscribeRate: 0.02,
  },
];

/** A group for the next message, by the groups' weights. */
export function pickGroup(random: Random): DemoGroup {
  return DEMO_GROUPS[
    weighted(
      random,
      DEMO_GROUPS.map((g) => g.weight),
    )
  ];
}

/** The message of one send: subject, HTML with its links, and a text part. */
export function messageBody(
  group: DemoGroup,
  n: number,
  toName: string,
): { subject: string; html: string; text: string } {
  const subject = group.subject(n);
  const links = group.links.map((p) => `${DEMO_SITE}${p}?ref=${n}`);
  const html = [
    `<html><body style="font-family:sans-serif">`,
    `<p>Hi ${toName.split(' ')[0]},</p>`,
    `<p>${subject}.</p>`,
    ...links.map((url, i) => `<p><a href="${url}">${i === 0 ? 'Open in your account' : 'More'}</a></p>`),
    `<p>Demo Shop</p></body></html>`,
  ].join('\n');
  const text = `Hi ${toName.split(' ')[0]},\n\n${subject}.\n\n${links.join('\n')}\n\nDemo Shop\n`;
  return { subject, html, text };
}

const FIRST = [
  'Ann',
  'Ben',
  'Chloe',
  'David',
  'Emma',
  'Finn',
  'Grace',
  'Hugo',
  'Isla',
  'Jack',
  'Kira',
  'Liam',
  'Maya',
  'Noah',
  'Olivia',
  'Paul',
  'Quinn',
  'Rosa',
  'Sam',
  'Tara',
  'Umar',
  'Vera',
  'Will',
  'Xena',
  'Yusuf',
  'Zoe',
  'Aisha',
  'Bruno',
  'Carmen',
  'Dmitri',
  'Elif',
  'Farah',
  'Gus',
  'Hana',
  'Ivan',
  'Jun',
  'Lena',
  'Marco',
  'Nia',
  'Oscar',
];
const LAST = [
  'Smith',
  'Jones',
  'Brown',
  'Garcia',
  'Müller',
  'Rossi',
  'Nowak',
  'Silva',
  'Kim',
  'Chen',
  'Patel',
  'Okafor',
  'Dubois',
  'Novak',
  'Larsen',
  'Haddad',
  'Tanaka',
  'Costa',
  'Berg',
  'Walsh',
  'Moreau',
  'Khan',
  'Ivanova',
  'Fischer',
  'Lopez',
];
// reserved names only (RFC 2606 / RFC 6761): no real mailbox can ever receive a demo message
const RECIPIENT_DOMAINS = [
  'example.com',
  'example.net',
  'example.org',
  'mail.example',
  'inbox.example',
  'post.example',
];
const RECIPIENT_DOMAIN_WEIGHTS = [40, 20, 12, 14, 8, 6];

/** A recipient, and what their mailbox does with our mail. */
export interface DemoRecipient {
  email: string;
  name: string;
  /** The address does not exist: the remote refuses it (a hard bounce, then suppression). */
  unknown: boolean;
  /** The mailbox is over quota now and then (an asynchronous soft bounce). */
  full: boolean;
  /** How keen the person is on our mail (scales open and click rates, 0.5–1.5). */
  engagement: number;
  /**
   * Presses "Report spam" on the first message delivered (then the complaint suppresses them): one
   * person in 150, who gets a few messages, so complaints stay near 0.25 % of delivered mail, under
   * the 0.3 % mailbox providers hold senders to.
   */
  complains: boolean;
}

export function recipients(random: Random, count: number): DemoRecipient[] {
  const seen = new Set<string>();
  const out: DemoRecipient[] = [];
  while (out.length < count) {
    const first = pick(random, FIRST);
    const last = pick(random, LAST);
    const style = Math.floor(random() * 3);
    const plain = (s: string) =>
      s
        .normalize('NFD')
        .replace(/[^\x00-\x7f]/g, '')
        .toLowerCase();
    const local =
      style === 0
        ? `${plain(first)}.${plain(last)}`
        : style === 1
          ? `${plain(first)[0]}${plain(last)}`
          : `${plain(first)}${Math.floor(random() * 99) + 1}`;
    const email = `${local}@${RECIPIENT_DOMAINS[weighted(random, RECIPIENT_DOMAIN_WEIGHTS)]}`;
    if (seen.has(email)) continue;
    seen.add(email);
    out.push({
      email,
      name: `${first} ${last}`,
      unknown: random() < 0.012,
      full: random() < 0.006,
      engagement: 0.5 + random(),
      complains: out.length % 150 === 37,
    });
  }
  return out;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// share of a day's mail per UTC hour: quiet at night, peaks late morning and early evening
const HOUR_WEIGHTS = [2, 1, 1, 1, 1, 2, 4, 7, 9, 10, 11, 10, 9, 9, 8, 8, 8, 9, 10, 10, 9, 7, 5, 3];
// Sunday … Saturday
const WEEKDAY_WEIGHTS = [0.55, 1.05, 1.0, 1.0, 1.0, 1.1, 0.7];

/**
 * Sending times over the `days` UTC days ending today, oldest first: a daily rhythm, quieter
 * weekends, slow growth and day-to-day noise; none later than `latest`.
 */
export function sendTimes(random: Random, count: number, wantedDays: number, latest: Date): Date[] {
  // at least yesterday as well: just after midnight today has (almost) no time to draw from
  const days = Math.max(2, wantedDays);
  const today = Date.UTC(latest.getUTCFullYear(), latest.getUTCMonth(), latest.getUTCDate());
  const first = today - (days - 1) * DAY_MS;
  const dayWeights = Array.from({ length: days }, (_, i) => {
    const weekday = new Date(first + i * DAY_MS).getUTCDay();
    return WEEKDAY_WEIGHTS[weekday] * (1 + (0.3 * i) / days) * (0.85 + 0.3 * random());
  });
  const out: number[] = [];
  while (out.length < count) {
    const day = first + weighted(random, dayWeights) * DAY_MS;
    const at = day + weighted(random, HOUR_WEIGHTS) * HOUR_MS + Math.floor(random() * HOUR_MS);
    if (at <= latest.getTime()) out.push(at);
  }
  return out.sort((a, b) => a - b).map((t) => new Date(t));
}

/** One delivery attempt of the plan: what the remote server answers, and when. */
export type Attempt =
  | { kind: 'delivered'; reply: string }
  | { kind: 'permanent'; reply: string }
  | { kind: 'temporary'; reply: string };

/** Everything that happens to one message after it is accepted, as offsets or times. */
export interface Fate {
  /** Seconds from acceptance to the first attempt's answer. */
  firstAttemptSeconds: number;
  /** Attempts in order; the last one ends the delivery unless it is temporary (retried until RETRY_MAX_HOURS). */
  attempts: Attempt[];
  /** A DSN arriving after delivery: hard or soft, this many minutes later. */
  laterBounce: { type: 'hard' | 'soft'; afterMinutes: number } | null;
  /** Opens and clicks, milliseconds after delivery (clicks carry the index of the link). */
  opens: number[];
  /**
   * Apple Mail Privacy Protection's fetch of the images, milliseconds after delivery (a machine's
   * open: src/server/tracking/machine-rules.ts); null for a recipient not on Apple Mail.
   */
  proxyOpenAfterMs: number | null;
  clicks: { afterMs: number; link: number }[];
  /** Unsubscribes this many milliseconds after delivery. */
  unsubscribeAfterMs: number | null;
  /** Presses "Report spam" this many milliseconds after delivery: the provider's feedback loop reports it. */
  complaintAfterMs: number | null;
}

/** The share of delivered messages Apple Mail Privacy Protection opens (kept small: the demo is about people). */
const APPLE_MAIL_SHARE = 0.08;

const REPLY_OK = '250 2.0.0 OK: queued as demo';
const REPLY_UNKNOWN = '550 5.1.1 <{to}>: Recipient address rejected: User unknown in virtual mailbox table';
const REPLY_GREYLISTED = '451 4.7.1 Greylisted, please try again later';
const REPLY_UNAVAILABLE = '421 4.3.2 Service not available, closing transmission channel';

/**
 * Decides what happens to a message to `to` of `group` accepted at `queuedAt`. Retries that would
 * still be running at `now` are avoided (every demo message ends delivered, bounced or failed, so
 * nothing is left for a worker to pick up).
 */
export function fateOf(
  random: Random,
  group: DemoGroup,
  to: DemoRecipient,
  queuedAt: Date,
  now: Date,
  retryMaxHours: number,
): Fate {
  const age = now.getTime() - queuedAt.getTime();
  const fate: Fate = {
    firstAttemptSeconds: 1 + random() * 20,
    attempts: [],
    laterBounce: null,
    opens: [],
    proxyOpenAfterMs: null,
    clicks: [],
    unsubscribeAfterMs: null,
    complaintAfterMs: null,
  };
  const ok: Attempt = { kind: 'delivered', reply: REPLY_OK };
  if (to.unknown) {
    fate.attempts = [{ kind: 'permanent', reply: REPLY_UNKNOWN.replace('{to}', to.email) }];
    return fate;
  }
  const r = random();
  if (r < 0.003 && age > (retryMaxHours + 2) * HOUR_MS) {
    // the remote stays unreachable until the retry window closes: a soft bounce
    fate.attempts = [{ kind: 'temporary', reply: REPLY_UNAVAILABLE }];
    return fate;
  }
  if (r < 0.035 && age > 3 * HOUR_MS) {
    // greylisting: deferred once or twice, then taken
    fate.attempts =
      random() < 0.7
        ? [{ kind: 'temporary', reply: REPLY_GREYLISTED }, ok]
        : [{ kind: 'temporary', reply: REPLY_GREYLISTED }, { kind: 'temporary', reply: REPLY_GREYLISTED }, ok];
  } else {
    fate.attempts = [ok];
  }
  if (to.full && random() < 0.5) {
    fate.laterBounce = { type: 'soft', afterMinutes: 1 + random() * 30 };
    return fate;
  }
  if (random() < 0.003) {
    fate.laterBounce = { type: 'hard', afterMinutes: 1 + random() * 30 };
    return fate;
  }
  // a few recipients read mail in Apple Mail: its proxy fetches the pixel seconds after delivery
  if (random() < APPLE_MAIL_SHARE) fate.proxyOpenAfterMs = 2_000 + random() * 30_000;
  if (random() < group.openRate * to.engagement) {
    // most opens come within hours, a few days later; some people open a message again
    let at = random() < 0.6 ? exponential(random, 40 * 60_000) : exponential(random, 16 * HOUR_MS);
    fate.opens.push(at);
    while (random() < 0.35) {
      at += exponential(random, 6 * HOUR_MS);
      fate.opens.push(at);
    }
    if (random() < group.clickRate * to.engagement) {
      let click = fate.opens[0] + 5_000 + exponential(random, 90_000);
      fate.clicks.push({
        afterMs: click,
        link: weighted(
          random,
          group.links.map((_, i) => (i === 0 ? 4 : 1)),
        ),
      });
      while (random() < 0.25) {
        // never two links within a second and a half: that is a link scanner's sweep, not a person
        click += 1_500 + exponential(random, 20 * 60_000);
        fate.clicks.push({ afterMs: click, link: Math.floor(random() * group.links.length) });
      }
    }
  }
  if (random() < group.unsubscribeRate)
    fate.unsubscribeAfterMs =
      (fate.opens[0] ?? exponential(random, 2 * HOUR_MS)) + 30_000 + exponential(random, 60_000);
  else if (to.complains)
    fate.complaintAfterMs =
      (fate.opens[0] ?? exponential(random, 3 * HOUR_MS)) + 20_000 + exponential(random, 10 * 60_000);
  return fate;
}
