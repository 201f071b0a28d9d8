// The DKIM options nodemailer signs a message with (docs/architecture.md §3.2, the message layer):
// the sending domain, its selector and its private key, parsed once per domain. The key arrives
// sealed (domains.dkim_private_key_sealed); the caller hands in the function that opens it, so this
// module needs no domain's code (credentials, core/secrets.ts) to do so.
import { type KeyObject, createPrivateKey } from 'node:crypto';

/**
 * nodemailer's default list of signed header fields (its dkim/sign.js) plus List-Unsubscribe-Post,
 * which it leaves out: RFC 8058 §4 requires both List-Unsubscribe headers to be covered by a valid
 * DKIM signature, or receivers ignore the one-click request.
 */
export const DKIM_SIGNED_FIELDS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID:' +
  'Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:' +
  'In-Reply-To:References:' +
  'List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive';

/** The sending domain of a loaded message, as delivery/queue.repository.ts loadMessages selects it. */
export interface SigningDomain {
  domain_id: number;
  domain: string;
  dkim_selector: string;
  dkim_private_key_sealed: string;
}

/** The domains' DKIM keys, each opened and parsed the first time a message of its domain is signed. */
export class DkimKeys {
  readonly #keys = new Map<number, KeyObject>();
  readonly #open: (sealed: string) => string;

  /** `open` turns a sealed key into its PEM text (ctx.secrets.decrypt). */
  constructor(open: (sealed: string) => string) {
    this.#open = open;
  }

  /**
   * The DKIM options for a message of this domain. nodemailer gets a parsed KeyObject instead of PEM
   * text: that halves the cost of composing and signing a message (measured 2.9 → 1.4 ms), since the
   * PEM would otherwise be parsed again for every signature. nodemailer's types say string; its
   * signer passes the key to crypto.Sign, which takes a KeyObject. Signed header fields are
   * nodemailer's default unless headerFieldNames is added (list-unsubscribe.ts withListUnsubscribe).
   */
  optionsFor(message: SigningDomain): { domainName: string; keySelector: string; privateKey: KeyObject & string } {
    let key = this.#keys.get(message.domain_id);
    if (!key) {
      key = createPrivateKey(this.#open(message.dkim_private_key_sealed));
      this.#keys.set(message.domain_id, key);
    }
    return { domainName: message.domain, keySelector: message.dkim_selector, privateKey: key as KeyObject & string };
  }
}
