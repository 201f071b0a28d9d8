// Is this open or click a person's? One question, one table. Mail privacy proxies and the link
// scanners of mail-security gateways fetch a message's pixel and links on their own, usually
// seconds after delivery; counted as people they would raise every read and click figure. Each rule
// below names what it catches and its public source; the first that applies decides. A hit no rule
// catches — one GET from a browser, later than that — is a person's. Every path that records a hit
// asks machineRuleOf (docs/architecture.md §5.4).
//
// Not a machine: Gmail's image proxy (agent "GoogleImageProxy", fetching through ggpht.com). Gmail
// fetches a message's images through it when the person opens the message and serves its own copy
// afterwards ("Images Now Showing", Gmail blog, December 2013), so its fetch is that person's first
// open (and later opens of the copy never reach us). No rule matches it, on purpose.
import ipaddr from 'ipaddr.js';
import type { MachineRuleId } from '../../contract/values.ts';

/** What the recorder knows of a hit when it asks. */
export interface HitFacts {
  kind: 'open' | 'click';
  /** The request method: GET, or HEAD. */
  method: string;
  /** The client's address as clientIp reads it (X-Forwarded-For under TRUST_PROXY); null unknown. */
  ip: string | null;
  userAgent: string | null;
  at: Date;
  /** When the recipient's server accepted the message (transactions.sent_at); null when not known. */
  deliveredAt: Date | null;
  /** Clicks only: the link, and the same address's other clicks on this message's links. */
  click?: {
    url: string;
    /** How many distinct links the message has (links rows of the transaction). */
    linkCount: number;
    /** The other clicks from this hit's address on this message (recorded or in the same batch). */
    sameAddress: readonly { url: string; at: Date }[];
  };
}

export interface MachineRule {
  id: MachineRuleId;
  /** What the rule catches, in a sentence. */
  what: string;
  /** Where the fact it relies on is published (or 'ours' with the reasoning). */
  source: string;
  applies(hit: HitFacts): boolean;
}

/** A click this soon after delivery is a gateway's scan: a person has not had the message yet. */
export const CLICK_AT_DELIVERY_MS = 5_000;
/** Clicks on every link of a message from one address within this window are one scan. */
export const EVERY_LINK_WINDOW_MS = 1_000;

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Apple Inc.'s network (ARIN NetRange 17.0.0.0 - 17.255.255.255, NET-17-0-0-0-1). */
const APPLE = [ipaddr.parseCIDR('17.0.0.0/8')];

/** The published networks of mail-security gateways whose scanners fetch the links (and images) of mail. */
export const SCANNER_NETWORKS: readonly { owner: string; cidrs: readonly string[]; source: string }[] = [
  {
    owner: 'Microsoft Exchange Online Protection (Defender for Office 365 Safe Links)',
    cidrs: [
      '40.92.0.0/15',
      '40.107.0.0/16',
      '52.100.0.0/14',
      '104.47.0.0/17',
      '2a01:111:f400::/48',
      '2a01:111:f403::/48',
    ],
    source:
      'Microsoft 365 URLs and IP address ranges, Exchange Online ID 10 ' +
      '(learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges); the SPF record ' +
      'spf.protection.outlook.com lists the same networks',
  },
  {
    owner: 'Proofpoint (Protection Server hosted, Essentials, URL Defense)',
    cidrs: ['67.231.144.0/20', '148.163.128.0/19'],
    source:
      "Proofpoint's support information page (proofpoint.my.site.com/support/PPSup_SupportInfo) and its " +
      'Essentials allow list; ARIN registers both networks to Proofpoint, Inc.',
  },
  {
    owner: 'Mimecast',
    cidrs: [
      '205.139.110.0/24',
      '205.139.111.0/24',
      '207.211.30.0/24',
      '207.211.31.0/25',
      '216.205.24.0/24',
      '63.128.21.0/24',
      '170.10.128.0/22',
      '195.130.217.0/24',
      '91.220.42.0/24',
      '146.101.78.0/24',
      '185.58.85.0/24',
      '185.58.86.0/24',
    ],
    source: "Mimecast's 'Data Centers and URLs' page, the United States and United Kingdom grids",
  },
  {
    owner: 'Barracuda Email Security Service',
    cidrs: ['64.235.144.0/20', '209.222.80.0/21'],
    source: "Barracuda Campus 'Barracuda Email Security Service IP Ranges', the United States instance",
  },
];

const SCANNERS: Range[] = SCANNER_NETWORKS.flatMap((n) => n.cidrs.map((cidr) => ipaddr.parseCIDR(cidr)));

/** Whether the address is in one of the ranges; an IPv4 address written as IPv6 (::ffff:a.b.c.d) counts as IPv4. */
function inRanges(ip: string | null, ranges: readonly Range[]): boolean {
  if (ip === null || !ipaddr.isValid(ip)) return false;
  const address = ipaddr.process(ip);
  return ranges.some((range) => range[0].kind() === address.kind() && address.match(range));
}

/**
 * Whether the hit, with the same address's other clicks, covers every link of a message of two or
 * more links within one window of EVERY_LINK_WINDOW_MS that contains the hit.
 */
function sweepsEveryLink(hit: HitFacts): boolean {
  const click = hit.click;
  if (!click || click.linkCount < 2) return false;
  const t = hit.at.getTime();
  const clicks = [{ url: click.url, at: t }, ...click.sameAddress.map((c) => ({ url: c.url, at: c.at.getTime() }))];
  // a window holding the hit can start at its earliest click, one of those up to a window before the hit
  return clicks
    .filter((start) => start.at <= t && t - start.at <= EVERY_LINK_WINDOW_MS)
    .some((start) => {
      const urls = new Set(
        clicks.filter((c) => c.at >= start.at && c.at - start.at <= EVERY_LINK_WINDOW_MS).map((c) => c.url),
      );
      return urls.size >= click.linkCount;
    });
}

/** The rules, in the order they are asked. */
export const MACHINE_RULES: readonly MachineRule[] = [
  {
    id: 'head_request',
    what:
      'A HEAD request: it asks for the headers only, as link checkers and prefetchers do; a mail client ' +
      'showing an image and a browser following a link send GET.',
    source: 'RFC 9110 §9.3.2 (HEAD: the same answer as GET without its content)',
    applies: (hit) => hit.method === 'HEAD',
  },
  {
    id: 'apple_mail_proxy',
    what:
      'Apple Mail Privacy Protection: Apple fetches every remote image of a message delivered to Apple Mail, ' +
      'whether or not it is read, from its own network with the bare agent "Mozilla/5.0".',
    source:
      'Apple, "Use Mail Privacy Protection" (support.apple.com); ARIN registers 17.0.0.0/8 to Apple Inc.; the ' +
      'agent as ESPs document it (e.g. SocketLabs, "Identifying Apple MPP opens")',
    applies: (hit) => hit.userAgent === 'Mozilla/5.0' && inRanges(hit.ip, APPLE),
  },
  {
    id: 'link_scanner_network',
    what:
      'From a published network of a mail-security gateway (Microsoft, Proofpoint, Mimecast, Barracuda), ' +
      'whose scanners fetch the links of mail before the person does.',
    source: 'the sources of SCANNER_NETWORKS, one per gateway',
    applies: (hit) => inRanges(hit.ip, SCANNERS),
  },
  {
    id: 'click_at_delivery',
    what:
      `A click less than ${CLICK_AT_DELIVERY_MS / 1000} s after the recipient's server accepted the message: ` +
      'gateways scan links as the message arrives (from addresses they do not publish); a person has not ' +
      'seen it yet.',
    source:
      'Microsoft, "Safe Links in Microsoft Defender for Office 365" (learn.microsoft.com): URLs are scanned ' +
      'during mail flow, before delivery to the mailbox; the 5 s bound is ours',
    applies: (hit) =>
      hit.kind === 'click' &&
      hit.deliveredAt !== null &&
      hit.at.getTime() - hit.deliveredAt.getTime() < CLICK_AT_DELIVERY_MS,
  },
  {
    id: 'every_link_at_once',
    what:
      'One of clicks on every link of the message (two or more) from one address within a second: a person ' +
      'follows a link and comes back; a scanner requests them all together.',
    source: 'ours, from how scanners behave (the Safe Links page above: every URL of a message is checked)',
    applies: (hit) => hit.kind === 'click' && sweepsEveryLink(hit),
  },
];

/** The rule that makes this hit a machine's, or null when it is a person's. */
export function machineRuleOf(hit: HitFacts): MachineRuleId | null {
  return MACHINE_RULES.find((rule) => rule.applies(hit))?.id ?? null;
}
