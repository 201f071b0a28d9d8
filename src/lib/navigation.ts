// Which navigation entries a user sees (docs/console.md §2 Shell and §6). Pure, shared by the layout and
// its tests. Top-navigation entries link out to the parent platform; the side menu is ours.
import type { SessionWire } from './wire.ts';

type Wire = Pick<SessionWire, 'enterprise' | 'user'>;

export interface NavEntry {
  id: string;
  label: string;
  href: string;
}

export interface NavGroup {
  id: string;
  label: string;
  entries: NavEntry[];
}

const yes = (value: string | undefined) => value === 'yes';

/** docs/console.md §6: allowed unless explicitly 'no'. */
export function canSendTransactions(user: Wire['user']): boolean {
  return user?.user_can_send_transactions !== 'no';
}

function isAdministrator(user: Wire['user']): boolean {
  return yes(user?.user_can_super_administrator) || yes(user?.user_can_customer_administrator);
}

function smsVisible(session: Wire): boolean {
  return (
    yes(session.enterprise?.enterprise_sms_enabled) &&
    (yes(session.user?.user_can_sms_edit) || yes(session.user?.user_can_message_report_access))
  );
}

/** Top navigation: groups of links to the parent platform, each shown per the permission rules. */
export function topNavigation(session: Wire): NavGroup[] {
  const base = session.enterprise?.enterprise_pmailer_url?.replace(/\/+$/, '');
  if (!base || !session.user) return [];
  const user = session.user;
  const link = (id: string, label: string, path: string): NavEntry => ({ id, label, href: `${base}${path}` });
  const groups: NavGroup[] = [];

  const account: NavEntry[] = [];
  if (isAdministrator(user)) account.push(link('customer-profile', 'Customer Profile', '/account/profile'));
  account.push(link('users-access', 'Users and Access', '/account/users'));
  if (isAdministrator(user)) {
    account.push(link('customers', 'Customers', '/account/customers'));
    account.push(link('branding', 'Branding', '/account/branding'));
  }
  if (yes(user.user_can_domains_access)) account.push(link('domains', 'Domains', '/account/domains'));
  account.push(link('integrations', 'Integrations', '/account/integrations'));
  account.push(link('stores', 'Stores', '/account/stores'));
  account.push(link('billing-quota', 'Billing and Quota', '/account/billing'));
  if (yes(user.user_can_archive_report_access)) account.push(link('account-logs', 'Account Logs', '/account/logs'));
  groups.push({ id: 'account', label: 'Account', entries: account });

  if (isAdministrator(user)) {
    groups.push({
      id: 'enterprise',
      label: 'Enterprise and Resellers',
      entries: [
        link('my-customers', 'My Customers', '/enterprise/customers'),
        link('enterprise-profile', 'Enterprise Profile', '/enterprise/profile'),
        link('enterprises', 'Enterprises', '/enterprise/enterprises'),
      ],
    });
  }
  if (yes(user.user_can_enterprise_templates)) {
    groups.push({
      id: 'templates',
      label: 'Templates',
      entries: [link('enterprise-templates', 'Enterprise Templates', '/enterprise/templates')],
    });
  }

  const products: NavEntry[] = [link('bulk', 'Bulk Email and SMS', '/')];
  products.push({ id: 'transactional-email', label: 'Transactional Email', href: '/' });
  if (smsVisible(session)) products.push(link('transactional-sms', 'Transactional SMS', '/transactional-sms'));
  groups.push({ id: 'products', label: 'Products', entries: products });

  groups.push({
    id: 'help',
    label: 'Help',
    entries: [
      link('support', 'Support', '/support'),
      link('knowledge-base', 'Knowledge Base', '/knowledge-base'),
      link('api-docs', 'API Docs', '/api-docs'),
    ],
  });
  return groups;
}

export interface SideEntry {
  id: string;
  label: string;
  href: string;
}

/** Side menu (docs/console.md §2): Suppression List, Templates and Settings only for users who may send. */
export function sideMenu(session: Wire): SideEntry[] {
  const send = canSendTransactions(session.user);
  const entries: (SideEntry | false)[] = [
    { id: 'dashboard', label: 'Dashboard', href: '/' },
    { id: 'groups', label: 'Transactional Groups Reports', href: '/groups' },
    // received mail is read like the transactions: by every user of the account
    { id: 'inbound', label: 'Inbound', href: '/inbound' },
    send && { id: 'suppression-list', label: 'Suppression List', href: '/suppression-list' },
    send && { id: 'templates', label: 'Templates', href: '/templates' },
    { id: 'online-attachments', label: 'Online Attachments', href: '/online-attachments' },
    { id: 'webhook-logs', label: 'Webhook Logs', href: '/webhook-logs' },
    send && { id: 'settings', label: 'Settings', href: '/settings' },
  ];
  return entries.filter((e): e is SideEntry => e !== false);
}
