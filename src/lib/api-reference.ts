// What the /docs/api page shows of the OpenAPI document: operations grouped by tag, a schema's
// fields as rows (name, type, required, description), readable type labels. Pure, server-side only.

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  maxLength?: number;
  minLength?: number;
  maximum?: number;
  minimum?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
  not?: object;
}

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

interface Components {
  schemas?: Record<string, JsonSchema>;
}

function resolve(schema: JsonSchema | undefined, components: Components): JsonSchema {
  let current = schema ?? {};
  for (let i = 0; i < 5 && current.$ref; i += 1) current = components.schemas?.[current.$ref.split('/').pop()!] ?? {};
  return current;
}

/** A short label for a schema's type: `string (≤ 998)`, `array of object`, `"a" | "b"`. */
export function typeLabel(schema: JsonSchema | undefined, components: Components): string {
  const s = resolve(schema, components);
  if (s.not && Object.keys(s.not).length === 0) return 'refused';
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return [...new Set(alternatives.map((a) => typeLabel(a, components)))].join(' | ');
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const labels = types.map((t) => {
    if (t === 'array')
      return `array of ${typeLabel(s.items, components)}${s.maxItems !== undefined ? ` (≤ ${s.maxItems})` : ''}`;
    if (t === 'string' && s.maxLength !== undefined) return `string (≤ ${s.maxLength})`;
    if ((t === 'integer' || t === 'number') && s.maximum !== undefined)
      return `${t} (${s.minimum ?? '…'}–${s.maximum})`;
    return t;
  });
  return labels.join(' | ') || 'any';
}

/** The rows of an object schema (the first object of a union: its other shapes are noted by the caller). */
export function fieldRows(schema: JsonSchema | undefined, components: Components): FieldRow[] {
  let s = resolve(schema, components);
  if (s.type === 'array' && s.items) s = resolve(s.items, components);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const object = alternatives.map((a) => resolve(a, components)).find((a) => a.properties);
    if (object) s = object;
  }
  if (!s.properties) return [];
  return Object.entries(s.properties).map(([name, field]) => ({
    name,
    type: typeLabel(field, components),
    required: s.required?.includes(name) ?? false,
    description: resolve(field, components).description ?? field.description ?? '',
  }));
}

/** An anchor id for an operation. */
export function anchorOf(method: string, path: string): string {
  return `${method}-${path}`
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/-+$/, '')
    .toLowerCase();
}
