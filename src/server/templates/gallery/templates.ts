// The gallery's templates (welcome, email verification code, password reset, magic
// sign-in link, order receipt, shipping update, invoice, account alert). Each has an HTML and a
// text part and the sample variables its preview and checks (scripts/score-gallery.mjs) use.
import { button, layout } from './layout.ts';

export interface GalleryTemplate {
  /** Stable key: the seed updates the row with this key rather than adding another. */
  key: string;
  name: string;
  description: string;
  subject: string;
  html: string;
  text: string;
  sample: Record<string, unknown>;
}

const FOOTER_TEXT = `--
You are receiving this message because of your {{company_name}} account.
{{company_name}} · {{company_address}}`;

const company = {
  company_name: 'Northwind Supply',
  company_address: '12 Harbour Road, Bristol BS1 4AB, United Kingdom',
};

const itemsTable = (
  totalLabel: string,
  totalVar: string,
) => `<table role="presentation" class="items" width="100%" cellpadding="0" cellspacing="0" border="0">
            {{#each items}}
            <tr><td>{{name}} &times; {{quantity}}</td><td class="amount">{{price}}</td></tr>
            {{/each}}
            <tr class="total"><td>${totalLabel}</td><td class="amount">{{${totalVar}}}</td></tr>
          </table>`;

const itemsText = (totalLabel: string, totalVar: string) => `{{#each items}}
- {{name}} x {{quantity}}: {{price}}
{{/each}}
${totalLabel}: {{${totalVar}}}`;

const sampleItems = [
  { name: 'Oak desk organiser', quantity: 1, price: '£34.00' },
  { name: 'Recycled notebook, A5', quantity: 3, price: '£18.00' },
];

export const GALLERY: GalleryTemplate[] = [
  {
    key: 'welcome',
    name: 'Welcome',
    description: 'Greets a new customer and points to the first step.',
    subject: 'Welcome to {{company_name}}, {{first_name}}',
    html: layout({
      title: 'Welcome to {{company_name}}',
      preheader: 'Your account is ready. Here is how to get started.',
      content:
        `          <h1>Welcome, {{first_name}}</h1>
          <p>Thank you for joining {{company_name}}. Your account is ready, and everything you need to get started ` +
        `is one click away.</p>
          ${button('{{action_url}}', 'Go to your account')}
          <p>If you have a question, reply to this message and our team will help.</p>
          <p class="muted">Your account email: {{email}}</p>`,
    }),
    text: `Welcome, {{first_name}}

Thank you for joining {{company_name}}. Your account is ready.

Go to your account: {{action_url}}

If you have a question, reply to this message and our team will help.
Your account email: {{email}}

${FOOTER_TEXT}`,
    sample: {
      ...company,
      first_name: 'Ann',
      email: 'ann@example.com',
      action_url: 'https://northwind.example/account',
    },
  },
  {
    key: 'verification-code',
    name: 'Email verification code',
    description: 'A one-time code that confirms an email address.',
    subject: 'Your {{company_name}} verification code',
    html: layout({
      title: 'Your verification code',
      preheader: 'Enter this code to confirm your email address.',
      content:
        `          <h1>Confirm your email address</h1>
          <p>Enter this code to confirm that {{email}} is yours. It expires in {{expires_minutes}} minutes.</p>
          <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 8px 0 ` +
        `24px;">
            <tr><td class="code">{{code}}</td></tr>
          </table>
          <p class="muted">If you did not ask for this code, you can ignore this message; nothing will change.</p>`,
    }),
    text: `Confirm your email address

Enter this code to confirm that {{email}} is yours. It expires in {{expires_minutes}} minutes.

{{code}}

If you did not ask for this code, you can ignore this message; nothing will change.

${FOOTER_TEXT}`,
    sample: { ...company, email: 'ann@example.com', code: '482913', expires_minutes: 10 },
  },
  {
    key: 'password-reset',
    name: 'Password reset',
    description: 'A link to choose a new password, with what to do if it was not requested.',
    subject: 'Reset your {{company_name}} password',
    html: layout({
      title: 'Reset your password',
      preheader: 'Use this link to choose a new password.',
      content:
        `          <h1>Reset your password</h1>
          <p>Hello {{first_name}}, we received a request to reset the password of your {{company_name}} account. Use ` +
        `the button below to choose a new one. The link works once and expires in {{expires_minutes}} minutes.</p>
          ${button('{{reset_url}}', 'Choose a new password')}
          <p class="muted">If the button does not work, copy this address into your browser:<br><a ` +
        `href="{{reset_url}}">{{reset_url}}</a></p>
          <p class="muted">Did not ask for this? Your password stays as it is, and you can ignore this message.</p>`,
    }),
    text:
      `Reset your password

Hello {{first_name}}, we received a request to reset the password of your {{company_name}} account. The link works ` +
      `once and expires in {{expires_minutes}} minutes:

{{reset_url}}

Did not ask for this? Your password stays as it is, and you can ignore this message.

${FOOTER_TEXT}`,
    sample: { ...company, first_name: 'Ann', reset_url: 'https://northwind.example/reset/3f9c2a', expires_minutes: 30 },
  },
  {
    key: 'magic-link',
    name: 'Magic sign-in link',
    description: 'A single-use link that signs the reader in without a password.',
    subject: 'Your sign-in link for {{company_name}}',
    html: layout({
      title: 'Sign in to {{company_name}}',
      preheader: 'One click signs you in. The link expires soon.',
      content:
        `          <h1>Sign in to {{company_name}}</h1>
          <p>Use the button below to sign in as {{email}}. The link can be used once and expires in ` +
        `{{expires_minutes}} minutes.</p>
          ${button('{{sign_in_url}}', 'Sign in')}
          <p class="muted">If the button does not work, copy this address into your browser:<br><a ` +
        `href="{{sign_in_url}}">{{sign_in_url}}</a></p>
          <p class="muted">If you did not try to sign in, ignore this message.</p>`,
    }),
    text: `Sign in to {{company_name}}

Use this link to sign in as {{email}}. It can be used once and expires in {{expires_minutes}} minutes:

{{sign_in_url}}

If you did not try to sign in, ignore this message.

${FOOTER_TEXT}`,
    sample: {
      ...company,
      email: 'ann@example.com',
      sign_in_url: 'https://northwind.example/sign-in/c81e72',
      expires_minutes: 15,
    },
  },
  {
    key: 'order-receipt',
    name: 'Order receipt',
    description: 'Confirms an order with its items, total and delivery address.',
    subject: 'Your order {{order_number}} is confirmed',
    html: layout({
      title: 'Order {{order_number}}',
      preheader: 'Thank you for your order. Here is your receipt.',
      content:
        `          <h1>Thank you for your order</h1>
          <p>Hello {{first_name}}, we have received order <strong>{{order_number}}</strong> placed on ` +
        `{{order_date}}.</p>
          ${itemsTable('Total', 'total')}
          <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 24px 0;">
            <tr>
              <td class="col" width="50%" style="padding-right: 8px;"><p class="muted" ` +
        `style="margin:0;"><strong>Delivery address</strong><br>{{shipping_address}}</p></td>
              <td class="col" width="50%" style="padding-left: 8px;"><p class="muted" ` +
        `style="margin:0;"><strong>Payment</strong><br>{{payment_method}}</p></td>
            </tr>
          </table>
          ${button('{{order_url}}', 'View your order')}`,
    }),
    text: `Thank you for your order

Hello {{first_name}}, we have received order {{order_number}} placed on {{order_date}}.

${itemsText('Total', 'total')}

Delivery address: {{shipping_address}}
Payment: {{payment_method}}

View your order: {{order_url}}

${FOOTER_TEXT}`,
    sample: {
      ...company,
      first_name: 'Ann',
      order_number: 'NW-10482',
      order_date: '23 November 2026',
      items: sampleItems,
      total: '£52.00',
      shipping_address: '4 Mill Lane, Bath BA1 1AA',
      payment_method: 'Visa ending 4242',
      order_url: 'https://northwind.example/orders/NW-10482',
    },
  },
  {
    key: 'shipping-update',
    name: 'Shipping update',
    description: 'Tells the customer the order is on its way, with tracking.',
    subject: 'Order {{order_number}} has shipped',
    html: layout({
      title: 'Your order has shipped',
      preheader: 'Your parcel is on its way. Track it any time.',
      content:
        `          <h1>Your order is on its way</h1>
          <p>Hello {{first_name}}, order <strong>{{order_number}}</strong> left our warehouse and is with ` +
        `{{carrier}}. Expected delivery: <strong>{{delivery_estimate}}</strong>.</p>
          <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 24px;">
            <tr><td class="box"><p class="muted" style="margin:0;">Tracking ` +
        `number<br><strong>{{tracking_number}}</strong></p></td></tr>
          </table>
          ${button('{{tracking_url}}', 'Track your parcel')}
          <p class="muted">Delivering to: {{shipping_address}}</p>`,
    }),
    text:
      `Your order is on its way

Hello {{first_name}}, order {{order_number}} left our warehouse and is with {{carrier}}. Expected delivery: ` +
      `{{delivery_estimate}}.

Tracking number: {{tracking_number}}
Track your parcel: {{tracking_url}}

Delivering to: {{shipping_address}}

${FOOTER_TEXT}`,
    sample: {
      ...company,
      first_name: 'Ann',
      order_number: 'NW-10482',
      carrier: 'Royal Mail',
      delivery_estimate: 'Wednesday 25 November',
      tracking_number: 'RM 8812 3345 0GB',
      tracking_url: 'https://northwind.example/track/NW-10482',
      shipping_address: '4 Mill Lane, Bath BA1 1AA',
    },
  },
  {
    key: 'invoice',
    name: 'Invoice',
    description: 'An invoice with its lines, amount due and due date.',
    subject: 'Invoice {{invoice_number}} from {{company_name}}',
    html: layout({
      title: 'Invoice {{invoice_number}}',
      preheader: 'Your invoice is ready. Amount due and due date inside.',
      content:
        `          <h1>Invoice {{invoice_number}}</h1>
          <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px;">
            <tr>
              <td class="col" width="50%" style="padding-right: 8px;"><p class="muted" ` +
        `style="margin:0;"><strong>Billed to</strong><br>{{customer_name}}</p></td>
              <td class="col" width="50%" style="padding-left: 8px;"><p class="muted" style="margin:0;"><strong>Due ` +
        `date</strong><br>{{due_date}}</p></td>
            </tr>
          </table>
          ${itemsTable('Amount due', 'amount_due')}
          <p style="margin-top: 24px;">Please pay by {{due_date}}. You can view and pay the invoice online.</p>
          ${button('{{invoice_url}}', 'View invoice')}`,
    }),
    text: `Invoice {{invoice_number}}

Billed to: {{customer_name}}
Due date: {{due_date}}

${itemsText('Amount due', 'amount_due')}

Please pay by {{due_date}}. View and pay the invoice online: {{invoice_url}}

${FOOTER_TEXT}`,
    sample: {
      ...company,
      invoice_number: 'INV-2026-0193',
      customer_name: 'Ann Smith',
      due_date: '7 December 2026',
      items: sampleItems,
      amount_due: '£52.00',
      invoice_url: 'https://northwind.example/invoices/INV-2026-0193',
    },
  },
  {
    key: 'account-alert',
    name: 'Account alert',
    description: 'Tells the reader about a sign-in or change on the account, and how to react.',
    subject: 'New sign-in to your {{company_name}} account',
    html: layout({
      title: 'New sign-in',
      preheader: 'We noticed a new sign-in to your account.',
      content:
        `          <h1>New sign-in to your account</h1>
          <p>Hello {{first_name}}, your {{company_name}} account was just used to sign in.</p>
          <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 24px;">
            <tr><td class="box"><p class="muted" style="margin:0;">When: <strong>{{event_time}}</strong><br>Device: ` +
        `<strong>{{device}}</strong><br>Location: <strong>{{location}}</strong></p></td></tr>
          </table>
          <p>If this was you, there is nothing to do. If not, secure your account now.</p>
          ${button('{{security_url}}', 'Review account security')}`,
    }),
    text: `New sign-in to your account

Hello {{first_name}}, your {{company_name}} account was just used to sign in.

When: {{event_time}}
Device: {{device}}
Location: {{location}}

If this was you, there is nothing to do. If not, secure your account now: {{security_url}}

${FOOTER_TEXT}`,
    sample: {
      ...company,
      first_name: 'Ann',
      event_time: '23 Nov 2026 - 14:02 UTC',
      device: 'Firefox on Windows',
      location: 'Bristol, United Kingdom',
      security_url: 'https://northwind.example/account/security',
    },
  },
];
