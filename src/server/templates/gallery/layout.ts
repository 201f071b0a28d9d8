// The gallery's one layout: a table-based 600 px card that becomes a
// single full-width column under 600 px, with dark-mode colours (prefers-color-scheme, plus the
// color-scheme meta for Apple Mail and Outlook.com), text in HTML rather than images (readable with
// images off), and a hidden preheader. Styles sit in <style> and are inlined by juice at publish;
// the media queries stay in <style> for the clients that read them.

/** Colours shared by every gallery template; one accent so a customer changes one value. */
export const ACCENT = '#2f6fde';

const STYLE =
  `
  body { margin: 0; padding: 0; background-color: #f3f4f6; -webkit-text-size-adjust: 100%; }
  table { border-collapse: collapse; }
  img { border: 0; line-height: 100%; outline: none; text-decoration: none; }
  .wrapper { width: 100%; background-color: #f3f4f6; }
  .container { width: 600px; max-width: 600px; background-color: #ffffff; border: 1px solid #e5e7eb; }
  .brand { padding: 24px 40px; font-family: Helvetica, Arial, sans-serif; font-size: 18px; font-weight: bold; color: ` +
  `#111827; border-bottom: 1px solid #e5e7eb; }
  .body { padding: 32px 40px; font-family: Helvetica, Arial, sans-serif; font-size: 16px; line-height: 24px; color: ` +
  `#1f2937; }
  .body h1 { margin: 0 0 16px; font-size: 24px; line-height: 32px; color: #111827; }
  .body p { margin: 0 0 16px; }
  .muted { color: #6b7280; font-size: 14px; line-height: 20px; }
  .button-cell { background-color: ${ACCENT}; border-radius: 6px; }
  .button { display: inline-block; padding: 12px 24px; font-family: Helvetica, Arial, sans-serif; font-size: 16px; ` +
  `font-weight: bold; color: #ffffff; text-decoration: none; border-radius: 6px; }
  .code { font-family: 'Courier New', Courier, monospace; font-size: 32px; letter-spacing: 6px; font-weight: bold; ` +
  `color: #111827; background-color: #f3f4f6; padding: 16px 24px; text-align: center; }
  .items { width: 100%; }
  .items td { padding: 8px 0; border-bottom: 1px solid #e5e7eb; font-family: Helvetica, Arial, sans-serif; ` +
  `font-size: 15px; color: #1f2937; }
  .items .amount { text-align: right; white-space: nowrap; }
  .items .total td { font-weight: bold; border-bottom: 0; }
  .col { vertical-align: top; }
  .box { background-color: #f9fafb; border: 1px solid #e5e7eb; padding: 16px; }
  .footer { padding: 24px 40px; font-family: Helvetica, Arial, sans-serif; font-size: 12px; line-height: 18px; ` +
  `color: #6b7280; }
  .footer a { color: #6b7280; }
  a { color: ${ACCENT}; }
  @media only screen and (max-width: 600px) {
    .container { width: 100% !important; border-left: 0 !important; border-right: 0 !important; }
    .brand, .body, .footer { padding-left: 20px !important; padding-right: 20px !important; }
    .col { display: block !important; width: 100% !important; padding: 0 0 16px !important; }
    .code { font-size: 26px !important; letter-spacing: 4px !important; }
  }
  @media (prefers-color-scheme: dark) {
    body, .wrapper { background-color: #111318 !important; }
    .container { background-color: #1b1e24 !important; border-color: #2d323b !important; }
    .brand, .body h1, .code { color: #f3f4f6 !important; }
    .brand, .items td { border-color: #2d323b !important; }
    .body, .items td { color: #d1d5db !important; }
    .muted, .footer, .footer a { color: #9ca3af !important; }
    .code, .box { background-color: #262a31 !important; border-color: #2d323b !important; }
    a { color: #7aa7ff !important; }
    .button { color: #ffffff !important; }
  }`;

/** A whole message around `content` (trusted gallery HTML with Handlebars variables). */
export function layout(opts: { title: string; preheader: string; content: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="x-apple-disable-message-reformatting">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${opts.title}</title>
<style>${STYLE}
</style>
</head>
<body>
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">${opts.preheader}</div>
<table role="presentation" class="wrapper" width="100%" cellpadding="0" cellspacing="0" border="0">
  <tr>
    <td align="center" style="padding: 24px 0;">
      <table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0">
        <tr><td class="brand">{{company_name}}</td></tr>
        <tr><td class="body">
${opts.content}
        </td></tr>
        <tr><td class="footer">
          You are receiving this message because of your {{company_name}} account.<br>
          {{company_name}} &middot; {{company_address}}
        </td></tr>
      </table>
    </td>
  </tr>
</table>
</body>
</html>
`;
}

/** A call-to-action button that stays a readable link with images and CSS off. */
export function button(href: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin: 8px 0 24px;">
            <tr><td class="button-cell" align="center"><a class="button" href="${href}">${label}</a></td></tr>
          </table>`;
}
