// A local authoritative DNS server for tests (dns2 on 127.0.0.1, UDP and TCP on one free port), so
// DNS checks never depend on the internet. Records change during a test; unknown names are NXDOMAIN.
import type { AddressInfo } from 'node:net';
import dns2, { type Packet, type Resource } from 'dns2';

export type RecordType = 'TXT' | 'CNAME' | 'A' | 'MX';

export interface DnsTestServer {
  /** '127.0.0.1:PORT', as DNS_SERVERS takes it. */
  address: string;
  /**
   * Replaces the records of one type at a name. A TXT value that is an array is one record of
   * several strings; strings longer than 255 octets are split as a zone file would (RFC 1035 §3.3).
   * MX values are 'preference exchange'; other types take plain strings.
   */
  set(name: string, type: RecordType, values: (string | string[])[]): void;
  remove(name: string, type: RecordType): void;
  /** Answers SERVFAIL for this name until `remove(name)` of any type or `set`. */
  fail(name: string): void;
  close(): Promise<void>;
}

const { Packet: P } = dns2;
const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

function chunks(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255).toString('utf8'));
  return out.length ? out : [''];
}

export async function startDnsServer(): Promise<DnsTestServer> {
  const zone = new Map<string, Map<RecordType, (string | string[])[]>>();
  const failing = new Set<string>();

  function resource(name: string, type: RecordType, value: string | string[]): Partial<Resource> {
    // TTL 0: a test changes records between lookups, so no resolver may cache them
    const base = { name, class: P.CLASS.IN, ttl: 0 };
    if (type === 'TXT')
      return { ...base, type: P.TYPE.TXT, data: (Array.isArray(value) ? value : [value]).flatMap(chunks) };
    const text = String(value);
    if (type === 'CNAME') return { ...base, type: P.TYPE.CNAME, domain: text };
    if (type === 'A') return { ...base, type: P.TYPE.A, address: text };
    const [priority, exchange] = text.split(/\s+/);
    return { ...base, type: P.TYPE.MX, priority: Number(priority), exchange };
  }

  const handle: Handler = (request, send) => {
    const response = P.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    let name = key(question.name);
    const type = P.TYPE_NAME[question.type] as RecordType;
    if (failing.has(name)) {
      response.header.rcode = P.RCODE.SERVFAIL;
    } else if (!zone.has(name)) {
      response.header.rcode = P.RCODE.NXDOMAIN;
    } else {
      // an alias answers every type with its CNAME, then the target's records (RFC 1034 §4.3.2)
      for (let hops = 0; hops < 8 && zone.has(name); hops++) {
        const records = zone.get(name)!;
        const alias = type === 'CNAME' ? undefined : records.get('CNAME')?.[0];
        if (alias === undefined) {
          for (const value of records.get(type) ?? [])
            response.answers.push(P.createResourceFromQuestion(question, resource(question.name, type, value)));
          break;
        }
        response.answers.push(P.createResourceFromQuestion(question, resource(name, 'CNAME', alias)));
        name = key(String(alias));
      }
    }
    void send(response).catch(() => {});
  };

  const { udp, tcp } = await listenOnOnePort(handle);
  return {
    address: `127.0.0.1:${(tcp.address() as AddressInfo).port}`,
    set(name, type, values) {
      failing.delete(key(name));
      if (!zone.has(key(name))) zone.set(key(name), new Map());
      zone.get(key(name))!.set(type, values);
    },
    remove(name, type) {
      failing.delete(key(name));
      const records = zone.get(key(name));
      records?.delete(type);
      if (records?.size === 0) zone.delete(key(name));
    },
    fail(name) {
      failing.add(key(name));
    },
    async close() {
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

type Handler = (request: Packet, send: (response: Packet) => Promise<Buffer>) => void;

/**
 * UDP on a free port and TCP on the same one: resolvers retry a truncated UDP answer (a 2048-bit
 * DKIM key) over TCP at the same address. Another process may hold that TCP port; then try again.
 */
async function listenOnOnePort(handle: Handler) {
  for (let attempt = 1; ; attempt++) {
    const udp = dns2.createUDPServer((request, send) => handle(request, send));
    await udp.listen(0, '127.0.0.1');
    const tcp = dns2.createTCPServer((request, send) => handle(request, send));
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(udp.address().port, '127.0.0.1', () => resolve());
      });
      return { udp, tcp };
    } catch (err) {
      udp.close();
      if (attempt === 5) throw err;
    }
  }
}
