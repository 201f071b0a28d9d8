// Verifies a delivered message's DKIM signature with mailauth, answering the DNS lookup for the
// sending domain's key from the domain row itself (no test depends on the internet).
import { createRequire } from 'node:module';
import type { Domain } from '../../src/server/db/schema.ts';
import { dkimRecordName } from '../../src/server/domains/domains.service.ts';

const { dkimVerify } = createRequire(import.meta.url)('mailauth/lib/dkim/verify') as {
  dkimVerify(
    input: Buffer,
    options: { resolver: (name: string, type: string) => Promise<string[][]> },
  ): Promise<{ results: { status: { result: string }; signingDomain: string }[] }>;
};

/** The first DKIM result of a raw message, with `domain`'s published key as the only DNS record. */
export async function dkimResult(raw: Buffer, domain: Pick<Domain, 'domain' | 'dkim_selector' | 'dkim_public_key'>) {
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name === dkimRecordName(domain)) return [[`v=DKIM1; k=rsa; p=${domain.dkim_public_key}`]];
    const err = new Error(`no ${type} for ${name}`) as Error & { code: string };
    err.code = 'ENOTFOUND';
    throw err;
  };
  return (await dkimVerify(raw, { resolver })).results[0];
}
