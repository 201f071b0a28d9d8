// The request examples of the OpenAPI document (src/contract/document.ts) show what the calls'
// descriptions promise: every operation that takes a body has an example, a JSON example is a body
// the schema accepts, and every field of the body that the description names in backticks (the way
// our descriptions name fields: "`online_attachment_id` adds a tracked download link") appears in
// one of the call's examples. Fields the document marks as refused (`not: {}`, Resend's `react`)
// are named to say they are not taken, so they are not looked for.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/document.ts';

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  not?: object;
}
interface MediaType {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  description: string;
  requestBody?: { description?: string; content: Record<string, MediaType> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const doc = openApiDocument('https://mail.example.test') as unknown as Doc;
const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]) : s);

/** The fields a body has at its top (for a list, its items'): name → schema, over every branch of a union. */
function topFields(schema: Schema, out = new Map<string, Schema>()): Map<string, Schema> {
  const s = resolve(schema);
  for (const [name, field] of Object.entries(s.properties ?? {})) out.set(name, resolve(field));
  if (s.items) topFields(s.items, out);
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) topFields(branch, out);
  return out;
}

/** The fields an example gives at its top (for a list, its items'). */
function exampleFields(value: unknown): Set<string> {
  const items = Array.isArray(value) ? value : [value];
  return new Set(items.flatMap((item) => (item && typeof item === 'object' ? Object.keys(item) : [])));
}

/** The names a description writes in backticks. */
const named = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

const bodies = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, op]) =>
    Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => ({
      where: `${method.toUpperCase()} ${path} (${type})`,
      op,
      type,
      media,
      examples:
        media.examples !== undefined
          ? Object.values(media.examples).map((e) => e.value)
          : media.example === undefined
            ? []
            : [media.example],
    })),
  ),
);

describe('the request examples of the OpenAPI document', () => {
  it('covers every operation that takes a body', () => {
    expect(bodies.length).toBeGreaterThan(25);
  });

  it.each(bodies)('$where has an example', ({ examples }) => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(bodies.filter((b) => b.type === 'application/json'))(
    '$where: its examples are bodies its schema accepts',
    ({ media, examples }) => {
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      const validate = ajv.compile({ ...media.schema, components: doc.components });
      for (const example of examples) expect(validate(example) ? [] : validate.errors).toEqual([]);
    },
  );

  it.each(bodies)('$where: every field its description names is in an example', ({ op, media, examples }) => {
    const fields = topFields(media.schema);
    const given = new Set(examples.flatMap((e) => [...exampleFields(e)]));
    const promised = named(`${op.description} ${op.requestBody?.description ?? ''}`).filter(
      (name) => fields.has(name) && fields.get(name)!.not === undefined,
    );
    expect(promised.filter((name) => !given.has(name))).toEqual([]);
  });

  it('POST /v1/mail shows a message with a tracked download link and a template send', () => {
    const mail = bodies.find((b) => b.where === 'POST /v1/mail (application/json)')!;
    expect([...exampleFields(mail.examples[0])]).toEqual(expect.arrayContaining(['html', 'online_attachment_id']));
    expect([...exampleFields(mail.examples[1])]).toEqual(expect.arrayContaining(['template_id', 'variables']));
  });
});
