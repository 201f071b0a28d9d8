// Every /v1 answer the integration suite receives is checked against GET /v1/openapi.json's
// document (the one hook: createTestApp wraps the app's fetch with it): the status must be one the
// operation documents, the content type one documented for that status, a JSON body must match
// the documented schema, and a refusal's `error.code` must be one the operation lists for that
// status (`x-error-codes`). A call no operation documents (an unknown path, or a method the path
// does not serve) must answer the error envelope. Under /resend a refusal is Resend's
// `{ statusCode, name, message }`, its name Resend's for a listed code. A mismatch fails the test
// that made the call.
import { type ErrorCode, RESEND_ERROR_NAME } from '../../src/contract/error-codes.ts';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/contract/document.ts';

interface MediaType {
  schema?: object;
}
interface Operation {
  responses: Record<string, { content?: Record<string, MediaType>; 'x-error-codes'?: string[] }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

interface Compiled {
  method: string;
  path: string;
  pattern: RegExp;
  /**
   * the longer path first, since a path's last parameter takes the rest (/resend/emails/receiving/{id} wins
   * over /resend/emails/{id}); then fixed segments first, so /v1/templates/search wins over /v1/templates/{id}
   */
  segments: number;
  rank: number;
  op: Operation;
}

function compile(doc: Doc): Compiled[] {
  const out: Compiled[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const params = (path.match(/\{/g) ?? []).length;
    const source = path
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\\?\{\w+\\?\}/g, '([^/]+)')
      .replace(/\{\w+\}/g, '([^/]+)');
    // the suppression address may hold an encoded slash: its last parameter takes the rest
    const pattern = new RegExp(`^${path.endsWith('}') ? source.replace(/\(\[\^\/\]\+\)$/, '(.+)') : source}$`);
    for (const [method, op] of Object.entries(item))
      out.push({ method: method.toUpperCase(), path, pattern, rank: params, segments: path.split('/').length, op });
  }
  return out.sort((a, b) => b.segments - a.segments || a.rank - b.rank);
}

/** The body as the client reads it: the API compresses answers the caller accepts compressed. */
async function bodyText(res: Response): Promise<string> {
  const raw = Buffer.from(await res.clone().arrayBuffer());
  const encoding = (res.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const plain =
    encoding === 'gzip'
      ? gunzipSync(raw)
      : encoding === 'br'
        ? brotliDecompressSync(raw)
        : encoding === 'deflate'
          ? inflateSync(raw)
          : encoding === 'zstd'
            ? zstdDecompressSync(raw)
            : raw;
  return plain.toString('utf8');
}

export interface ResponseChecker {
  check(method: string, url: string, res: Response): Promise<void>;
}

export function responseChecker(publicUrl: string): ResponseChecker {
  const doc = openApiDocument(publicUrl) as unknown as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const cache = new Map<object, ValidateFunction>();
  const validatorOf = (schema: object): ValidateFunction => {
    let fn = cache.get(schema);
    if (!fn) {
      // `#/components/...` references resolve against this root, so the components ride along
      fn = ajv.compile({ ...schema, components: doc.components });
      cache.set(schema, fn);
    }
    return fn;
  };
  const operations = compile(doc);
  const envelope = (doc.components as { schemas: Record<string, object> }).schemas.Error;
  const resendShape = (doc.components as { schemas: Record<string, object> }).schemas.ResendError;

  return {
    async check(method, url, res) {
      const path = new URL(url).pathname;
      if (!path.startsWith('/v1/') && !path.startsWith('/resend/')) return;
      // the Resend-compatible surface answers every refusal in Resend's shape, ours the envelope
      const refusalShape = path.startsWith('/resend/') ? resendShape : envelope;
      const where = `${method} ${path} → ${res.status}`;
      const found = operations.find((o) => o.method === (method === 'HEAD' ? 'GET' : method) && o.pattern.test(path));
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
      const text = method === 'HEAD' || res.status === 204 ? '' : await bodyText(res);
      const fail = (why: string) => {
        throw new Error(`response not as documented (${where}): ${why}\n${text.slice(0, 500)}`);
      };
      if (!found) {
        if (res.status < 400) fail('no operation documents this call');
        if (type !== 'application/json') fail('an undocumented call must answer the error envelope');
        // a HEAD answer has no body to check (its GET's would be the envelope)
        if (method !== 'HEAD' && !validatorOf(refusalShape)(JSON.parse(text)))
          fail('an undocumented call must answer the error envelope (Resend’s shape under /resend)');
        return;
      }
      const response = found.op.responses[String(res.status)];
      if (!response)
        fail(
          `status ${res.status} is not documented for ${found.method} ${found.path} (documented: ` +
            `${Object.keys(found.op.responses).join(', ')})`,
        );
      if (!response.content || text === '') {
        if (text !== '' && response.content === undefined) fail('a body where none is documented');
        return;
      }
      const media = response.content[type];
      if (!media)
        fail(
          `content type ${type || '(none)'} is not documented (documented: ${Object.keys(response.content).join(
            ', ',
          )})`,
        );
      if (type !== 'application/json' || !media.schema) return;
      const body = JSON.parse(text);
      const validate = validatorOf(media.schema);
      if (!validate(body)) fail(ajv.errorsText(validate.errors, { separator: '; ' }));
      const codes = response['x-error-codes'];
      if (codes && 'statusCode' in body) {
        // Resend's shape names the reason by Resend's name for one of the documented codes
        const names = new Set(codes.map((c) => RESEND_ERROR_NAME[c as ErrorCode]));
        if (codes.includes('unauthorized')) names.add('missing_api_key');
        if (!names.has(body.name) || body.statusCode !== res.status)
          fail(`error name ${body.name} is not documented for ${res.status} (documented: ${[...names].join(', ')})`);
        return;
      }
      if (codes && !codes.includes(body.error?.code))
        fail(
          `error code ${body.error?.code} is not documented for ${res.status} of ${found.method} ${found.path} ` +
            `(documented: ${codes.join(', ')})`,
        );
    },
  };
}
