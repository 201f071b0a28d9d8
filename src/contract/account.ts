// The console's account calls of the contract: sign-in and sign-out, the session, the parent
// platform's challenge, Settings, Domains and Getting Started (docs/console.md §7, docs/console-reports.md §7 Auth).
import { z } from '@hono/zod-openapi';
import { numericId, operationsOf } from './common.ts';
import { PERMISSIONS, type Permission, SENDING_OPTIONS } from './values.ts';

export const loginBody = z.object({
  email: z.string().trim().min(1, 'is required').max(254),
  password: z.string().min(1, 'is required').max(1024),
});

export const challengeBody = z.object({
  installUrl: z.string().min(1).max(2048),
  redirect: z.string().max(2048).nullable().optional(),
});

export const callbackQuery = z.object({ assertion: z.string().min(1).max(8192) });

const yesNo = z.enum(['yes', 'no']);
const permissionFlags = Object.fromEntries(PERMISSIONS.map((p) => [`user_can_${p}`, yesNo])) as Record<
  `user_can_${Permission}`,
  typeof yesNo
>;
const sessionAnswer = z.object({
  isAuthenticated: z.boolean(),
  enterprise: z
    .object({
      enterprise_id: z.number().int(),
      enterprise_name: z.string(),
      enterprise_header_colour: z.string().nullable(),
      enterprise_logo: z.string().nullable(),
      enterprise_pmailer_url: z.string().nullable(),
      enterprise_sms_enabled: yesNo,
    })
    .nullable(),
  customer: z.object({ customer_id: z.number().int(), customer_name: z.string() }).nullable(),
  user: z
    .object({
      ...permissionFlags,
      user_id: z.number().int(),
      user_name: z.string(),
      user_email: z.string(),
      user_profile_picture: z.string().nullable(),
    })
    .openapi({ description: 'The user, with a `user_can_<permission>` flag (yes/no) per permission.' })
    .nullable(),
  backendUrl: z.string(),
});

// docs/console.md §7: "one key (track_opens, track_links or disable_suppression) set to the new boolean"
export const sendingOptionChange = z
  .strictObject({
    track_opens: z.boolean().optional(),
    track_links: z.boolean().optional(),
    disable_suppression: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length === 1, { message: `send exactly one of ${SENDING_OPTIONS.join(', ')}` });

const settings = z.object({
  tsetting_track_opens: z.boolean(),
  tsetting_track_links: z.boolean(),
  tsetting_disable_suppression: z.boolean(),
});
const apiCredentials = z.object({ username: z.string(), apiKey: z.string(), url: z.string() });
const smtpCredentials = z.object({
  host: z.string(),
  port: z.number().int(),
  username: z.string(),
  password: z.string(),
});

export const createDomainBody = z.strictObject({
  domain_url: z.string().max(300),
  domain_verification_email: z.string().max(400),
});
export const resendVerificationBody = z.strictObject({ email: z.string().max(400).optional() });

const domain = z.object({
  domain_id: z.number().int(),
  domain_domain: z.string(),
  domain_sending_verified: yesNo,
  domain_verification_email: z.string().nullable(),
  domain_verification_sent_timestamp: z.string().nullable(),
  domain_created_timestamp: z.string(),
  dns_checked_timestamp: z.string().nullable(),
  domain_receiving: z.boolean().openapi({
    description: 'Whether the domain receives mail here (docs/receiving.md): its MX record is then listed.',
  }),
  domain_inbound_refuse_dmarc_reject: z.boolean().openapi({
    description:
      'Whether the MX listener refuses at DATA (550 5.7.1) a message that fails DMARC while its From domain ' +
      'publishes p=reject; when false such a message is kept and flagged (docs/receiving.md).',
  }),
  dns_records: z.array(
    z.object({
      purpose: z.enum(['spf', 'dkim', 'dmarc', 'return_path', 'receiving']),
      type: z.enum(['TXT', 'CNAME', 'MX']),
      name: z.string(),
      value: z.string(),
      priority: z.number().int().optional().openapi({ description: 'An MX record’s preference (receiving).' }),
      check: z
        .object({ ok: z.boolean(), found: z.string().nullable(), expected: z.string(), detail: z.string().optional() })
        .nullable()
        .openapi({ description: 'The last DNS check of this record, null before any.' }),
    }),
  ),
});

const signInOperation = operationsOf({ tag: 'Sign-in', access: 'public' });
const settingsOperation = operationsOf({ tag: 'Settings', access: 'session' });
const domainOperation = operationsOf({ tag: 'Domains', access: 'session' });

const domainParams = z.object({
  id: numericId.openapi({ description: 'The domain id; anything but digits answers 404.', example: '7' }),
});

export const login = signInOperation('POST /v1/auth/login', {
  summary: 'Sign in',
  description:
    'Checks the email and password and sets the session cookie. After repeated failures for one email or one ' +
    'address, further tries get 429 for a while. Unknown email and wrong password give the same answer.',
  body: loginBody,
  bodyExample: { email: 'ada@example.com', password: 'correct horse battery staple' },
  success: [
    { status: 200, description: 'Signed in: the session, as GET /v1/verify_auth answers it.', schema: sessionAnswer },
  ],
  errors: ['invalid_credentials', 'csrf_failed', 'too_many_requests'],
});

export const logout = signInOperation('POST /v1/logout', {
  summary: 'Sign out',
  description:
    'Ends the session and clears its cookie; answers where the browser should go next (the parent platform, or the ' +
    'sign-in page).',
  success: [
    {
      status: 200,
      description: 'Signed out.',
      schema: z.object({ redirect: z.string() }),
      example: { redirect: '/login' },
    },
  ],
  errors: ['csrf_failed'],
});

export const verifyAuth = signInOperation('GET /v1/verify_auth', {
  summary: 'Who is signed in',
  description: 'The session’s user, customer and enterprise; `isAuthenticated: false` (still 200) when signed out.',
  success: [{ status: 200, description: 'The session.', schema: sessionAnswer }],
});

export const initiateChallenge = signInOperation('POST /v1/auth/initiate-challenge', {
  summary: 'Start a sign-in through the parent platform',
  description:
    'Sets a short-lived challenge cookie and answers the parent platform address the browser goes to; the platform ' +
    'sends it back to GET /v1/auth/callback with a signed assertion.',
  body: challengeBody,
  bodyExample: { installUrl: 'https://platform.example.com/apps/transact', redirect: 'groups' },
  success: [{ status: 200, description: 'Where to send the browser.', schema: z.object({ redirectUrl: z.string() }) }],
  errors: ['csrf_failed', 'forbidden', 'not_found'],
});

export const authCallback = signInOperation('GET /v1/auth/callback', {
  summary: 'Finish a sign-in through the parent platform',
  description:
    'Checks the platform’s signed assertion against the challenge cookie, starts a session and redirects into the ' +
    'console; any refusal redirects to /unauthorized instead of answering JSON.',
  query: callbackQuery,
  checkedByHandler: true,
  success: [
    { status: 302, description: 'To the console page asked for, or to /unauthorized when the assertion is refused.' },
  ],
});

export const getSettings = settingsOperation('GET /v1/ui-settings', {
  summary: 'Sending options and credentials',
  description: 'The account’s sending options (open and link tracking, suppression) and its API and SMTP credentials.',
  success: [
    {
      status: 200,
      description: 'Settings and credentials.',
      schema: z.object({
        settings,
        credentials: z.object({ apiCredentials, smtpCredentials, isReseller: z.boolean() }),
      }),
    },
  ],
  errors: ['forbidden', 'not_found'],
});

export const changeSetting = settingsOperation('POST /v1/ui-settings', {
  summary: 'Change one sending option',
  description: `Sets exactly one of ${SENDING_OPTIONS.join(', ')} to a boolean; the next message sent follows it.`,
  body: sendingOptionChange,
  bodyExample: { track_opens: false },
  success: [{ status: 200, description: 'The options now.', schema: z.object({ settings }) }],
  errors: ['forbidden'],
});

export const listDomains = domainOperation('GET /v1/domains', {
  summary: 'List sending domains',
  description: 'The account’s domains with their verification state and the DNS records to publish.',
  success: [{ status: 200, description: 'The domains.', schema: z.object({ domains: z.array(domain) }) }],
  errors: ['forbidden'],
});

export const createDomain = domainOperation('POST /v1/domains', {
  summary: 'Add a sending domain',
  description:
    'Adds a domain and mails a verification link to an address at it. Refusals carry `messages` (the problems as a ' +
    'list) beside the error.',
  body: createDomainBody,
  checkedByHandler: true,
  bodyExample: { domain_url: 'example.com', domain_verification_email: 'postmaster@example.com' },
  success: [
    {
      status: 201,
      description: 'Created; the verification mail is on its way.',
      schema: z.object({ messages: z.array(z.string()), domain }),
    },
  ],
  errors: ['forbidden', 'conflict', 'too_many_requests'],
});

export const getDomain = domainOperation('GET /v1/domains/{id}', {
  summary: 'One sending domain',
  description: 'A domain with its verification state and DNS records.',
  params: domainParams,
  success: [{ status: 200, description: 'The domain.', schema: z.object({ domain }) }],
  errors: ['forbidden', 'not_found'],
});

export const resendVerification = domainOperation('POST /v1/domains/{id}/verification', {
  summary: 'Send the verification mail again',
  description:
    'Mails a fresh verification link, to another address at the domain when `email` is given. A domain that is ' +
    'already verified answers 409.',
  params: domainParams,
  body: resendVerificationBody,
  bodyExample: { email: 'webmaster@example.com' },
  checkedByHandler: true,
  success: [{ status: 200, description: 'Sent.', schema: z.object({ messages: z.array(z.string()), domain }) }],
  errors: ['forbidden', 'not_found', 'conflict', 'too_many_requests'],
});

export const checkDomain = domainOperation('POST /v1/domains/{id}/check', {
  summary: 'Check the DNS records now',
  description:
    'Looks up the domain’s SPF, DKIM, DMARC and return-path records and answers the domain with each result.',
  params: domainParams,
  success: [{ status: 200, description: 'The domain with fresh checks.', schema: z.object({ domain }) }],
  errors: ['forbidden', 'not_found'],
});

export const setDomainReceiving = domainOperation('PUT /v1/domains/{id}/receiving', {
  summary: 'Switch receiving mail on or off',
  description:
    'With receiving on, the MX listener takes mail for any address of the domain once it is verified, and its ' +
    'MX record joins the records to publish (docs/receiving.md). `inbound_refuse_dmarc_reject` chooses what ' +
    'happens to a message that fails DMARC under its From domain’s p=reject: refused at DATA (true) or kept and ' +
    'flagged (false, the default). Each field given is changed, the other kept. Answers the domain.',
  params: domainParams,
  body: z.strictObject({
    enabled: z.boolean().optional().openapi({ description: 'Receiving on or off.' }),
    inbound_refuse_dmarc_reject: z
      .boolean()
      .optional()
      .openapi({ description: 'Refuse (550 5.7.1) rather than flag a message failing DMARC under p=reject.' }),
  }),
  bodyExample: { enabled: true, inbound_refuse_dmarc_reject: false },
  success: [{ status: 200, description: 'The domain, changed.', schema: z.object({ domain }) }],
  errors: ['forbidden', 'not_found'],
});

export const getStarted = settingsOperation('GET /v1/get-started', {
  summary: 'Getting Started',
  description: 'What the Getting Started page shows: the domains and the API and SMTP credentials.',
  success: [
    {
      status: 200,
      description: 'Domains and credentials.',
      schema: z.object({ domains: z.array(domain), apiCredentials, smtpCredentials, isReseller: z.boolean() }),
    },
  ],
  errors: ['forbidden', 'not_found'],
});

export const accountOperations = [
  login,
  logout,
  verifyAuth,
  initiateChallenge,
  authCallback,
  getSettings,
  changeSetting,
  listDomains,
  createDomain,
  getDomain,
  resendVerification,
  checkDomain,
  setDomainReceiving,
  getStarted,
];
