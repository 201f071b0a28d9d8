// Online attachments in mail: POST /v1/mail's `online_attachment_id` (over SMTP the
// header X-Transact-Attachments) names a link by its integration ID; at delivery each recipient's
// copy gets a small block in the customer's branding with a link of its own (signed with the
// transaction's uuid), so every download is recorded as a `download` event on that transaction.
// Added after tracking rewrites the body (the download is counted as a download, not a click) and
// before DKIM signs it.
import type { AppContext } from '../core/context.ts';
import type { TrackedContent } from '../tracking/tracking.service.ts';
import { rewriteTextParts } from '../message/raw-mime.ts';
import { DomainError } from '../core/errors.ts';
import { formatFileSize } from '../../lib/file-size.ts';
import { formatLongDate } from '../../lib/dates.ts';
import * as repo from './attachments.repository.ts';
import { DEFAULT_BRANDING, recipientLink } from './attachments.service.ts';

/** The customer's link with this integration ID; 400 when there is none (another customer's included). */
export async function attachmentGroupFor(ctx: AppContext, customerId: number, integrationId: string): Promise<number> {
  const group = await repo.findGroupByIntegrationId(ctx.db, customerId, integrationId);
  if (!group) {
    throw new DomainError(
      'validation_failed',
      `online_attachment_id: there is no online attachment link with the integration ID '${integrationId}'`,
      {
        details: [{ path: 'online_attachment_id', message: 'unknown integration ID' }],
      },
    );
  }
  return group.id;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

interface Block {
  html: string;
  text: string;
}

async function blockFor(ctx: AppContext, groupId: number, transactionUuid: string): Promise<Block | null> {
  const group = await ctx.db.selectFrom('attachment_groups').selectAll().where('id', '=', groupId).executeTakeFirst();
  if (!group) return null;
  const [assets, branding] = await Promise.all([
    repo.listAssets(ctx.db, [group.id]),
    repo.findBranding(ctx.db, group.customer_id),
  ]);
  const b = branding?.settings ?? DEFAULT_BRANDING;
  const link = recipientLink(ctx, group.public_id, transactionUuid);
  const expiry = group.expires_at
    ? `Available until ${formatLongDate(Math.floor(new Date(group.expires_at).getTime() / 1000))}`
    : '';
  const files = assets.map((a) => `${a.name} (${formatFileSize(Number(a.size))})`);
  const html =
    `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:24px ` +
    `0;border-collapse:collapse;width:100%;max-width:560px">` +
    `<tr><td style="padding:16px;border:1px solid ` +
    `#dddddd;border-radius:6px;background:${b.page.colour};color:${b.page.text_colour};` +
    `font-family:Arial,sans-serif;font-size:14px;line-height:1.5">` +
    `<strong>${escapeHtml(group.name)}</strong><br>` +
    files.map((f) => `<span style="color:${b.link.text_colour}">${escapeHtml(f)}</span><br>`).join('') +
    (expiry ? `<span>${escapeHtml(expiry)}</span><br>` : '') +
    `<a href="${escapeHtml(link)}" style="display:inline-block;margin-top:8px;padding:8px ` +
    `16px;border-radius:4px;background:${b.button.colour};color:${b.button.text_colour};` +
    `text-decoration:none;font-weight:bold">Download files</a>` +
    `</td></tr></table>`;
  const text =
    `\r\n\r\n${group.name}\r\n${files.join('\r\n')}${expiry ? `\r\n${expiry}` : ''}\r\nDownload: ` + `${link}\r\n`;
  return { html, text };
}

function intoHtml(html: string, block: string): string {
  const at = html.toLowerCase().lastIndexOf('</body>');
  return at < 0 ? html + block : html.slice(0, at) + block + html.slice(at);
}

/** The content with the attachment block added, or as it was when the message names no link. */
export async function withAttachmentBlock(
  ctx: AppContext,
  tx: { uuid: string },
  message: { attachment_group_id: number | null },
  content: TrackedContent,
): Promise<TrackedContent> {
  if (!message.attachment_group_id) return content;
  const block = await blockFor(ctx, message.attachment_group_id, tx.uuid);
  if (!block) return content; // the link was deleted after the mail was accepted
  if (content.raw) {
    let htmlDone = false;
    let textDone = false;
    const raw = rewriteTextParts(content.raw, (part, subtype) => {
      if (subtype === 'html' && !htmlDone) {
        htmlDone = true;
        return intoHtml(part, block.html);
      }
      if (subtype === 'plain' && !textDone) {
        textDone = true;
        return part + block.text;
      }
      return part;
    });
    return { ...content, raw };
  }
  return {
    html: content.html === null ? null : intoHtml(content.html, block.html),
    text: content.text === null ? null : content.text + block.text.replace(/\r\n/g, '\n'),
    raw: null,
  };
}
