// The machine rules of src/server/tracking/machine-rules.ts, rule by rule: each catches the hits its
// source describes (and no rule catches a person's), with the addresses and agents seen in practice.
import { describe, expect, it } from 'vitest';
import { MACHINE_RULE_IDS } from '../../src/contract/values.ts';
import {
  CLICK_AT_DELIVERY_MS,
  type HitFacts,
  MACHINE_RULES,
  SCANNER_NETWORKS,
  machineRuleOf,
} from '../../src/server/tracking/machine-rules.ts';

const DELIVERED = new Date('2026-03-02T10:00:00.000Z');
const HOUR = 3_600_000;
const after = (ms: number) => new Date(DELIVERED.getTime() + ms);
const SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const IPHONE_MAIL = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

/** An open from a person's mail client an hour after delivery, changed by `over`. */
function open(over: Partial<HitFacts> = {}): HitFacts {
  return {
    kind: 'open',
    method: 'GET',
    ip: '198.51.100.7',
    userAgent: IPHONE_MAIL,
    at: after(HOUR),
    deliveredAt: DELIVERED,
    ...over,
  };
}

/** A click on the first of three links from a browser an hour after delivery, changed by `over`. */
function click(over: Partial<HitFacts> = {}, sameAddress: { url: string; at: Date }[] = [], linkCount = 3): HitFacts {
  return {
    ...open({ kind: 'click', userAgent: SAFARI }),
    click: { url: 'https://shop.example/a', linkCount, sameAddress },
    ...over,
  };
}

describe('the machine rule table', () => {
  it('has one rule per recorded rule id, each with what it catches and a source', () => {
    expect(MACHINE_RULES.map((r) => r.id)).toEqual([...MACHINE_RULE_IDS]);
    for (const rule of MACHINE_RULES) {
      expect(rule.what.length).toBeGreaterThan(20);
      expect(rule.source.length).toBeGreaterThan(10);
    }
    for (const network of SCANNER_NETWORKS) expect(network.source.length).toBeGreaterThan(10);
  });
});

describe('a person', () => {
  it('is a GET from a browser or mail client later than delivery, opening or clicking one link', () => {
    expect(machineRuleOf(open())).toBeNull();
    expect(machineRuleOf(click())).toBeNull();
    // a second link a minute after the first: a person came back
    expect(machineRuleOf(click({}, [{ url: 'https://shop.example/b', at: after(HOUR - 60_000) }]))).toBeNull();
  });

  it('is whoever Gmail fetches the pixel for (GoogleImageProxy: fetched when the message is opened)', () => {
    expect(machineRuleOf(open({ ip: '66.249.84.17', userAgent: GMAIL_PROXY }))).toBeNull();
    // even soon after delivery: the person opened it at once
    expect(machineRuleOf(open({ ip: '66.249.84.17', userAgent: GMAIL_PROXY, at: after(2_000) }))).toBeNull();
  });

  it('is an open at any time after delivery (the 5 s rule is for clicks)', () => {
    expect(machineRuleOf(open({ at: after(1_000) }))).toBeNull();
  });

  it('is someone on Apple’s network with a real browser agent (Safari through iCloud Private Relay)', () => {
    expect(machineRuleOf(click({ ip: '17.58.63.1', userAgent: SAFARI }))).toBeNull();
  });
});

describe('head_request (RFC 9110 §9.3.2)', () => {
  it('catches a HEAD of the pixel or of a link, whoever sends it', () => {
    expect(machineRuleOf(open({ method: 'HEAD' }))).toBe('head_request');
    expect(machineRuleOf(click({ method: 'HEAD' }))).toBe('head_request');
  });
});

describe('apple_mail_proxy (Apple Mail Privacy Protection: 17.0.0.0/8, agent "Mozilla/5.0")', () => {
  it('catches the proxy’s fetch of the pixel at delivery', () => {
    expect(machineRuleOf(open({ ip: '17.58.63.1', userAgent: 'Mozilla/5.0', at: after(3_000) }))).toBe(
      'apple_mail_proxy',
    );
    expect(machineRuleOf(open({ ip: '::ffff:17.120.1.9', userAgent: 'Mozilla/5.0' }))).toBe('apple_mail_proxy');
  });

  it('needs both: the bare agent elsewhere, or a full agent on Apple’s network, is not it', () => {
    expect(machineRuleOf(open({ ip: '203.0.113.5', userAgent: 'Mozilla/5.0' }))).toBeNull();
    expect(machineRuleOf(open({ ip: '17.58.63.1', userAgent: IPHONE_MAIL }))).toBeNull();
    expect(machineRuleOf(open({ ip: '18.0.0.1', userAgent: 'Mozilla/5.0' }))).toBeNull();
  });
});

describe('link_scanner_network (the gateways’ published networks)', () => {
  const cases: [owner: string, ip: string][] = [
    ['Microsoft EOP', '40.107.22.45'],
    ['Microsoft EOP', '52.101.4.7'],
    ['Microsoft EOP, IPv6', '2a01:111:f403:2c0f::1'],
    ['Proofpoint', '67.231.149.12'],
    ['Proofpoint', '148.163.150.3'],
    ['Mimecast', '205.139.110.61'],
    ['Mimecast', '91.220.42.240'],
    ['Barracuda', '209.222.82.10'],
    ['Barracuda', '64.235.150.4'],
  ];
  it.each(cases)('catches an open or click from %s (%s)', (_owner, ip) => {
    expect(machineRuleOf(open({ ip, userAgent: SAFARI }))).toBe('link_scanner_network');
    expect(machineRuleOf(click({ ip }))).toBe('link_scanner_network');
  });

  it('does not catch the addresses next to them', () => {
    for (const ip of ['40.106.255.255', '104.47.128.1', '67.231.160.1', '209.222.88.1', '2a01:111:f404::1'])
      expect({ ip, rule: machineRuleOf(click({ ip })) }).toEqual({ ip, rule: null });
  });

  it('ignores an address it cannot read', () => {
    expect(machineRuleOf(click({ ip: null }))).toBeNull();
    expect(machineRuleOf(click({ ip: 'unknown' }))).toBeNull();
  });
});

describe('click_at_delivery (a gateway scans as the message arrives)', () => {
  it('catches a click less than 5 s after delivery, and one recorded before delivery was', () => {
    expect(machineRuleOf(click({ at: after(2_000) }))).toBe('click_at_delivery');
    expect(machineRuleOf(click({ at: after(CLICK_AT_DELIVERY_MS - 1) }))).toBe('click_at_delivery');
    expect(machineRuleOf(click({ at: after(-200) }))).toBe('click_at_delivery');
  });

  it('leaves a click from 5 s on, and a click whose delivery time is unknown', () => {
    expect(machineRuleOf(click({ at: after(CLICK_AT_DELIVERY_MS) }))).toBeNull();
    expect(machineRuleOf(click({ at: after(2_000), deliveredAt: null }))).toBeNull();
  });
});

describe('every_link_at_once (one address, every link, within a second)', () => {
  const at = after(HOUR);
  const soon = (ms: number) => new Date(at.getTime() + ms);

  it('catches the click that completes the sweep, and one inside it', () => {
    const others = [
      { url: 'https://shop.example/b', at: soon(-300) },
      { url: 'https://shop.example/c', at: soon(-120) },
    ];
    expect(machineRuleOf(click({}, others))).toBe('every_link_at_once');
    // the hit first, the others after it (the same batch): it is one of the sweep too
    const later = [
      { url: 'https://shop.example/b', at: soon(400) },
      { url: 'https://shop.example/c', at: soon(900) },
    ];
    expect(machineRuleOf(click({}, later))).toBe('every_link_at_once');
  });

  it('needs every link within one second', () => {
    const spread = [
      { url: 'https://shop.example/b', at: soon(-700) },
      { url: 'https://shop.example/c', at: soon(600) },
    ];
    expect(machineRuleOf(click({}, spread))).toBeNull();
    // two of three links is not every link
    expect(machineRuleOf(click({}, [{ url: 'https://shop.example/b', at: soon(-100) }]))).toBeNull();
    // the same link twice is one link
    expect(
      machineRuleOf(
        click({}, [
          { url: 'https://shop.example/a', at: soon(-100) },
          { url: 'https://shop.example/b', at: soon(-50) },
        ]),
      ),
    ).toBeNull();
  });

  it('leaves a message of one link: its one click is every link', () => {
    expect(machineRuleOf(click({}, [], 1))).toBeNull();
  });
});

describe('the order of the rules', () => {
  it('names the first that applies', () => {
    expect(machineRuleOf(click({ method: 'HEAD', ip: '17.1.1.1', userAgent: 'Mozilla/5.0', at: after(1) }))).toBe(
      'head_request',
    );
    expect(machineRuleOf(click({ ip: '40.107.1.1', at: after(1) }))).toBe('link_scanner_network');
  });
});
