// Code samples per operation for the reference (the document's `x-codeSamples`, the /docs/api
// page): curl, Node (fetch, and the `resend` SDK for the Resend-compatible calls) and Python
// requests, each authenticating the way the operation takes and sending its example body.

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

interface SampleInput {
  method: string;
  path: string;
  baseUrl: string;
  /** the operation's security requirement names */
  security: string[];
  body?: unknown;
  /** a multipart body (the tracked attachment uploads): its text fields and the file in each file field */
  form?: { fields: Record<string, string>; files: Record<string, string> };
  /** the Resend-compatible calls: the SDK's call, with its arguments when it takes no body */
  sdkCall?: string;
}

const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);

/** JSON as Python source (True/False/None). */
function python(value: unknown, level = 0): string {
  const pad = '    '.repeat(level + 1);
  const end = '    '.repeat(level);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  if (Array.isArray(value))
    return value.length === 0 ? '[]' : `[\n${value.map((v) => pad + python(v, level + 1)).join(',\n')},\n${end}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length === 0
    ? '{}'
    : `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${python(v, level + 1)}`).join(',\n')},\n${end}}`;
}

/** The samples of one operation. */
export function codeSamples(input: SampleInput): CodeSample[] {
  const url = `${input.baseUrl}${input.path}`;
  const method = input.method.toUpperCase();
  const apiKey = input.security.includes('bearerApiKey');
  const session = !apiKey && input.security.includes('sessionCookie');
  const json = input.body === undefined ? undefined : JSON.stringify(input.body, null, 2);
  const writes = method !== 'GET' && method !== 'DELETE';

  const form = input.form;
  const shellQuoted = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  // a single-quoted JavaScript or Python string literal
  const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

  const curl = [`curl -X ${method} '${url}'`];
  if (apiKey) curl.push(`-H "Authorization: Bearer $TRANSACT_API_KEY"`);
  if (session) curl.push(`-b "transact_session=$TRANSACT_SESSION"`, `-H 'Request-Type: ui'`);
  if (form)
    curl.push(
      ...Object.entries(form.fields).map(([name, value]) => `-F ${shellQuoted(`${name}=${value}`)}`),
      ...Object.entries(form.files).map(([name, file]) => `-F ${shellQuoted(`${name}=@${file}`)}`),
    );
  else if (json !== undefined && writes)
    curl.push(`-H 'Content-Type: application/json'`, `--data '${json.replace(/'/g, "'\\''")}'`);

  const headers: string[] = [];
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own JavaScript template literal
  if (apiKey) headers.push('Authorization: `Bearer ${process.env.TRANSACT_API_KEY}`');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own JavaScript template literal
  if (session) headers.push('Cookie: `transact_session=${process.env.TRANSACT_SESSION}`', "'Request-Type': 'ui'");
  if (json !== undefined && writes && !form) headers.push("'Content-Type': 'application/json'");
  const nodeLines = [`const res = await fetch('${url}', {`, `  method: '${method}',`];
  if (headers.length) nodeLines.push(`  headers: { ${headers.join(', ')} },`);
  if (form) nodeLines.push('  body: form,');
  else if (json !== undefined && writes) nodeLines.push(`  body: JSON.stringify(${indent(json, '  ')}),`);
  nodeLines.push('});', 'console.log(res.status, await res.json());');
  if (form)
    nodeLines.unshift(
      "import { readFile } from 'node:fs/promises';",
      '',
      'const form = new FormData();',
      ...Object.entries(form.fields).map(([name, value]) => `form.set('${name}', ${literal(value)});`),
      ...Object.entries(form.files).map(
        ([name, file]) => `form.set('${name}', new Blob([await readFile('${file}')]), '${file}');`,
      ),
    );

  const pyLines = ['import os', 'import requests', ''];
  const pyArgs = [`'${url}'`];
  if (apiKey) pyArgs.push("headers={'Authorization': f\"Bearer {os.environ['TRANSACT_API_KEY']}\"}");
  if (session)
    pyArgs.push("headers={'Request-Type': 'ui'}", "cookies={'transact_session': os.environ['TRANSACT_SESSION']}");
  if (form) {
    const data = Object.entries(form.fields).map(([name, value]) => `'${name}': ${literal(value)}`);
    const files = Object.entries(form.files).map(([name, file]) => `'${name}': open('${file}', 'rb')`);
    if (data.length) pyArgs.push(`data={${data.join(', ')}}`);
    pyArgs.push(`files={${files.join(', ')}}`);
  } else if (input.body !== undefined && writes) pyArgs.push(`json=${python(input.body, 1).trimEnd()}`);
  pyLines.push(
    `res = requests.${method.toLowerCase()}(\n    ${pyArgs.join(',\n    ')},\n)`,
    'print(res.status_code, res.json())',
  );

  const samples: CodeSample[] = [
    { lang: 'Shell', label: 'curl', source: curl.join(' \\\n  ') },
    { lang: 'JavaScript', label: 'Node (fetch)', source: nodeLines.join('\n') },
  ];
  if (input.sdkCall) {
    const base = input.path.startsWith('/resend/') ? '/resend' : '/v1';
    const call = input.sdkCall.includes('(') ? input.sdkCall : `${input.sdkCall}(${json ?? '{}'})`;
    samples.push({
      lang: 'JavaScript',
      label: 'Node (resend SDK)',
      source: [
        "import { Resend } from 'resend';",
        '',
        `// the SDK reads its base URL from RESEND_BASE_URL: set it to ${input.baseUrl}${base}`,
        'const resend = new Resend(process.env.TRANSACT_API_KEY);',
        `const { data, error } = await ${call};`,
        'console.log(data ?? error);',
      ].join('\n'),
    });
  }
  samples.push({ lang: 'Python', label: 'Python (requests)', source: pyLines.join('\n') });
  return samples;
}

/** Sending over SMTP submission, for the reference's SMTP section. */
export function smtpSamples(host: string, port: number): CodeSample[] {
  return [
    {
      lang: 'JavaScript',
      label: 'Node (nodemailer)',
      source: [
        "import nodemailer from 'nodemailer';",
        '',
        'const transport = nodemailer.createTransport({',
        `  host: '${host}',`,
        `  port: ${port},`,
        '  // STARTTLS when the server offers it; the credentials are on Settings → Credentials',
        '  auth: { user: process.env.TRANSACT_SMTP_USER, pass: process.env.TRANSACT_SMTP_PASSWORD },',
        '});',
        'const info = await transport.sendMail({',
        "  from: 'Example Shop <receipts@example.com>',",
        "  to: 'ada@example.org',",
        "  subject: 'Your receipt',",
        "  html: '<p>Thank you for your order.</p>',",
        "  headers: { 'X-Transact-Group': 'Receipts' },",
        '});',
        'console.log(info.response);',
      ].join('\n'),
    },
    {
      lang: 'Python',
      label: 'Python (smtplib)',
      source: [
        'import os',
        'import smtplib',
        'from email.message import EmailMessage',
        '',
        'msg = EmailMessage()',
        "msg['From'] = 'Example Shop <receipts@example.com>'",
        "msg['To'] = 'ada@example.org'",
        "msg['Subject'] = 'Your receipt'",
        "msg.set_content('Thank you for your order.')",
        "msg.add_alternative('<p>Thank you for your order.</p>', subtype='html')",
        '',
        `with smtplib.SMTP('${host}', ${port}) as smtp:`,
        '    smtp.starttls()',
        "    smtp.login(os.environ['TRANSACT_SMTP_USER'], os.environ['TRANSACT_SMTP_PASSWORD'])",
        '    smtp.send_message(msg)',
      ].join('\n'),
    },
  ];
}
