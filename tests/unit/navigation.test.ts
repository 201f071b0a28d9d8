// Which navigation entries a user sees, per the permission rules of docs/console.md §6 (and the side
// menu of §2 Shell).
import { describe, expect, it } from 'vitest';
import { canSendTransactions, sideMenu, topNavigation } from '../../src/lib/navigation.ts';
import type { EnterpriseWire, UserWire } from '../../src/server/accounts/accounts.service.ts';
import { PERMISSIONS, type Permission } from '../../src/contract/values.ts';

const PARENT = 'https://parent.example';

function enterprise(overrides: Partial<EnterpriseWire> = {}): EnterpriseWire {
  return {
    enterprise_id: 1,
    enterprise_name: 'Acme',
    enterprise_header_colour: '#243447',
    enterprise_logo: null,
    enterprise_pmailer_url: PARENT,
    enterprise_sms_enabled: 'no',
    ...overrides,
  };
}

/** A user with exactly the named permissions set to 'yes' (send_transactions too only when named). */
function user(granted: Permission[] = []): UserWire {
  const flags = Object.fromEntries(PERMISSIONS.map((p) => [`user_can_${p}`, granted.includes(p) ? 'yes' : 'no']));
  return {
    ...flags,
    user_id: 1,
    user_name: 'Ann',
    user_email: 'ann@example.com',
    user_profile_picture: null,
  } as UserWire;
}

function topIds(granted: Permission[], ent: Partial<EnterpriseWire> = {}): string[] {
  return topNavigation({ enterprise: enterprise(ent), user: user(granted) }).flatMap((g) => g.entries.map((e) => e.id));
}

function groupIds(granted: Permission[]): string[] {
  return topNavigation({ enterprise: enterprise(), user: user(granted) }).map((g) => g.id);
}

const ADMIN_ONLY = ['customer-profile', 'branding', 'my-customers', 'enterprise-profile'];

describe('topNavigation', () => {
  it.each<[string, Permission[], boolean]>([
    ['a super administrator', ['super_administrator'], true],
    ['a customer administrator', ['customer_administrator'], true],
    [
      'a user with every other permission',
      PERMISSIONS.filter((p) => p !== 'super_administrator' && p !== 'customer_administrator'),
      false,
    ],
    ['a user with no permission', [], false],
  ])('%s sees Customer Profile, Branding and Enterprise and Resellers: %s', (_who, granted, shown) => {
    const ids = topIds(granted);
    for (const id of ADMIN_ONLY) expect(ids.includes(id), id).toBe(shown);
    expect(groupIds(granted).includes('enterprise')).toBe(shown);
  });

  it('puts My Customers and Enterprise Profile in the Enterprise and Resellers group', () => {
    const group = topNavigation({ enterprise: enterprise(), user: user(['super_administrator']) }).find(
      (g) => g.id === 'enterprise',
    )!;
    expect(group.label).toBe('Enterprise and Resellers');
    expect(group.entries.map((e) => e.label)).toEqual(expect.arrayContaining(['My Customers', 'Enterprise Profile']));
  });

  it.each<[Permission, string]>([
    ['domains_access', 'domains'],
    ['archive_report_access', 'account-logs'],
    ['enterprise_templates', 'enterprise-templates'],
  ])('shows the %s entry (%s) only with that flag', (permission, id) => {
    expect(topIds([permission])).toContain(id);
    expect(topIds([])).not.toContain(id);
    const everythingElse = PERMISSIONS.filter((p) => p !== permission);
    expect(topIds(everythingElse)).not.toContain(id);
  });

  it.each<[EnterpriseWire['enterprise_sms_enabled'], Permission[], boolean]>([
    ['yes', ['sms_edit'], true],
    ['yes', ['message_report_access'], true],
    ['yes', ['sms_edit', 'message_report_access'], true],
    ['yes', [], false],
    ['yes', ['super_administrator', 'customer_administrator', 'domains_access', 'send_transactions'], false],
    ['no', ['sms_edit', 'message_report_access'], false],
    ['no', [], false],
  ])('with SMS enabled %s and permissions %j, the SMS entry shows: %s', (sms, granted, shown) => {
    expect(topIds(granted, { enterprise_sms_enabled: sms }).includes('transactional-sms')).toBe(shown);
  });

  it('links every parent-platform entry to the enterprise parent URL', () => {
    const groups = topNavigation({
      enterprise: enterprise({ enterprise_pmailer_url: `${PARENT}/` }),
      user: user([...PERMISSIONS]),
    });
    const links = groups.flatMap((g) => g.entries).filter((e) => e.id !== 'transactional-email');
    expect(links.length).toBeGreaterThan(0);
    for (const entry of links) expect(entry.href.startsWith(`${PARENT}/`), entry.href).toBe(true);
    expect(links.every((e) => !e.href.startsWith(`${PARENT}//`))).toBe(true);
  });

  it.each([null, ''])('shows no top navigation when the parent URL is %j', (url) => {
    expect(
      topNavigation({ enterprise: enterprise({ enterprise_pmailer_url: url }), user: user([...PERMISSIONS]) }),
    ).toEqual([]);
  });

  it('shows no top navigation when signed out', () => {
    expect(topNavigation({ enterprise: null, user: null })).toEqual([]);
  });
});

describe('sideMenu', () => {
  const SEND_ONLY = ['suppression-list', 'templates', 'settings'];
  const ALWAYS = ['dashboard', 'groups', 'inbound', 'online-attachments', 'webhook-logs'];

  function sideIds(send: 'yes' | 'no' | undefined): string[] {
    const u = user([]) as Record<string, unknown>;
    if (send === undefined) delete u.user_can_send_transactions;
    else u.user_can_send_transactions = send;
    return sideMenu({ enterprise: enterprise(), user: u as UserWire }).map((e) => e.id);
  }

  it.each<['yes' | 'no' | undefined, boolean]>([
    ['yes', true],
    [undefined, true],
    ['no', false],
  ])('with user_can_send_transactions %j shows Suppression List, Templates and Settings: %s', (send, shown) => {
    const ids = sideIds(send);
    for (const id of SEND_ONLY) expect(ids.includes(id), id).toBe(shown);
    for (const id of ALWAYS) expect(ids, id).toContain(id);
  });

  it(
    'keeps the order of docs/console.md §2: Dashboard, Groups, Inbound, Suppression List, Templates, ' +
      'Online Attachments, Webhook Logs, Settings',
    () => {
      expect(sideIds('yes')).toEqual([
        'dashboard',
        'groups',
        'inbound',
        'suppression-list',
        'templates',
        'online-attachments',
        'webhook-logs',
        'settings',
      ]);
    },
  );
});

describe('canSendTransactions', () => {
  it.each<[Partial<UserWire> | null, boolean]>([
    [{ user_can_send_transactions: 'yes' }, true],
    [{ user_can_send_transactions: 'no' }, false],
    [{}, true],
    [null, true],
  ])('%j → %s (allowed unless explicitly no, docs/console.md §6)', (u, expected) => {
    expect(canSendTransactions(u as UserWire | null)).toBe(expected);
  });
});
