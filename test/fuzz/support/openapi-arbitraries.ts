import fc from 'fast-check';

/** The parts of an OpenAPI 3 document the fuzzer reads. */
export interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  example?: unknown;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** Strings that have broken a service before, or that a careless layer mishandles. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'Hi \ud83d',
  '\udc00',
  '😀👍🏽🇩🇪',
  '%00',
  '%E0%A4%A',
  '../../etc/passwd',
  "' OR 1=1 --",
  '{{1}}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  '-1',
  '0',
  '1e309',
  'NaN',
  'null',
  'x'.repeat(5000),
];

const deep = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

/** Any JSON-shaped value, including the deep and wide ones that cost a naive validator its breath. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileString },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      null,
      -0,
      2 ** 53 + 1,
      1e308,
      -1,
      true,
      [],
      {},
      deep(40),
      Array.from({ length: 5000 }, () => ({})),
      Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])),
    ),
  },
);

/** Values shaped by a schema (so requests get past the first check), any field now and then hostile. */
export function fromSchema(doc: OpenApiDocument, schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const hostile = (valid: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
  if (depth > 6) return hostileValue;
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return fromSchema(doc, doc.components.schemas[name], depth);
  }
  const alternatives = schema.allOf ?? schema.oneOf ?? schema.anyOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(doc, s, depth)));
  if (schema.enum) return hostile(fc.constantFrom(...schema.enum));
  switch (schema.type) {
    case 'string': {
      const valid = fc.oneof(
        ...(typeof schema.example === 'string' ? [fc.constant(schema.example)] : []),
        fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 20, 20) }),
      );
      return hostile(valid);
    }
    case 'integer':
    case 'number':
      return hostile(
        fc.oneof(
          // A number's bounds need not be whole (a rate from 0.1): the whole numbers inside them.
          fc.integer({
            min: Math.ceil(schema.minimum ?? -5),
            max: Math.floor(Math.min(schema.maximum ?? 2 ** 31, 2 ** 31)),
          }),
          fc.double(),
        ),
      );
    case 'boolean':
      return hostile(fc.boolean());
    case 'array':
      return hostile(fc.array(fromSchema(doc, schema.items ?? {}, depth + 1), { maxLength: 4 }));
    default: {
      const props = schema.properties ?? {};
      const keys = Object.keys(props);
      if (keys.length === 0) return hostileValue;
      const record = fc.record(Object.fromEntries(keys.map((k) => [k, fromSchema(doc, props[k], depth + 1)])), {
        requiredKeys: (schema.required ?? []).filter((k) => keys.includes(k)),
      });
      // Now and then a field the schema does not know.
      return hostile(
        fc.oneof(
          { weight: 5, arbitrary: record },
          {
            weight: 1,
            arbitrary: fc.tuple(record, hostileString, hostileValue).map(([r, k, v]) => ({ ...(r as object), [k]: v })),
          },
        ),
      );
    }
  }
}

/** A request body as bytes: mostly schema-shaped JSON, sometimes not JSON at all. */
export function bodyArbitrary(doc: OpenApiDocument, schema: Schema | undefined): fc.Arbitrary<string | undefined> {
  const json = (schema ? fromSchema(doc, schema) : hostileValue).map((v) => JSON.stringify(v));
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        '',
        '{"a": ',
        '['.repeat(5000) + ']'.repeat(5000),
        '{"__proto__": {"x": 1}}',
        '{"a":"\\ud800"}',
        '"\\u0000"',
      ),
    },
  );
}

/**
 * A path segment: the valid value of the fixture (to get past the lookup), or a hostile one,
 * sometimes with raw (not re-encoded) percent signs.
 */
export function segmentArbitrary(valid: string | undefined): fc.Arbitrary<string> {
  const encode = (s: string) =>
    [...Buffer.from(s, 'utf8')]
      .map((b) =>
        /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`,
      )
      .join('');
  return fc.oneof(
    ...(valid !== undefined ? [{ weight: 4, arbitrary: fc.constant(encodeURIComponent(valid)) }] : []),
    { weight: 2, arbitrary: hostileString.map(encode) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.uuid(),
        fc.integer().map(String),
        fc.constantFrom('%00', '%E0%A4%A', '%', '%zz', '9'.repeat(150)),
      ),
    },
  );
}
